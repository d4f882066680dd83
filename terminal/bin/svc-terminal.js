#!/usr/bin/env node
// The svc-terminal command: runs the TypeScript source through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../cli.ts');

#!/usr/bin/env node
// The svc-contracts command: runs the TypeScript source through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../suite/cli.ts');

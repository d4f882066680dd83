#!/usr/bin/env node
// The svc-relay command: runs the TypeScript source through tsx.
import { register } from 'tsx/esm/api';

register();
await import('../relay/svc-relay.ts');

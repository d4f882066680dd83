// Accepts the interface's surface as it is now into contracts/interface-surface.txt (interface-surface.ts says why):
// run it once what a change adds to the document is classified, the interface's left in and ours marked out.
// node --import tsx contracts/write-interface-surface.ts
import { writeFileSync } from 'node:fs';
import { interfaceSurface } from './interface-surface.js';
import { openApiDocument } from './openapi.js';

writeFileSync(new URL('./interface-surface.txt', import.meta.url), `${interfaceSurface(openApiDocument).join('\n')}\n`);

// Writes the OpenAPI document as JSON (for Redocly lint and for anyone who
// wants the file): node --import tsx contracts/write-document.ts [FILE]
import { writeFileSync } from 'node:fs';
import { openApiDocument } from './openapi.js';

const file = process.argv[2] ?? new URL('./openapi.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(openApiDocument, null, 2)}\n`);

// Writes contracts/types/document-types.d.ts from the OpenAPI document:
// npm run write:types. A test fails while the
// file differs from what the document says, so the types cannot drift.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiTypesText } from './operation-types-text.js';

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = new URL('./document-types.d.ts', import.meta.url);
  writeFileSync(file, openApiTypesText());
  console.log(`wrote ${fileURLToPath(file)}`);
}

import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations } from './openapi.js';
import { interfaceDocument } from './profiles.js';
import { resolveRef } from './validator.js';

// The surface the `interface` profile judges a deployment on, one line a
// fact: each operation, each status it answers, each media type, each field
// of a request or an answer, as the interface document has them (what is
// ours taken out: profiles.ts). Kept in contracts/interface-surface.txt and
// compared by a test: anything added to our document shows here until it is
// classified, either marked ours or accepted as the interface's, so an
// addition of ours can never again be judged as the interface by default.

type Schema = OpenAPIV3_1.SchemaObject & { [keyword: string]: unknown };

/** How deep fields are followed: past this, a schema's inner fields are the same facts over again. */
const MAX_DEPTH = 6;

/** The fields a schema names, as JSON-pointer-like paths (`/data/batchNumber`, `/items/[]/id`). */
function fieldsOf(doc: OpenAPIV3_1.Document, node: unknown, at: string, depth: number, into: Set<string>): void {
  if (!node || typeof node !== 'object' || depth > MAX_DEPTH) return;
  const schema = resolveRef<Schema>(doc, node as Schema);
  for (const part of ['allOf', 'anyOf', 'oneOf'] as const)
    for (const each of (schema[part] as unknown[] | undefined) ?? []) fieldsOf(doc, each, at, depth + 1, into);
  for (const [name, value] of Object.entries((schema.properties as Record<string, unknown> | undefined) ?? {})) {
    into.add(`${at}/${name}`);
    fieldsOf(doc, value, `${at}/${name}`, depth + 1, into);
  }
  if (schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items))
    fieldsOf(doc, schema.items, `${at}/[]`, depth + 1, into);
}

/** Every fact of the interface's surface, sorted: a line each. */
export function interfaceSurface(doc: OpenAPIV3_1.Document): string[] {
  const loose = interfaceDocument(doc);
  const lines = new Set<string>();
  for (const entry of listOperations(loose)) {
    const op = `${entry.method.toUpperCase()} ${entry.path}`;
    lines.add(`operation ${op}`);
    if (entry.operation.requestBody) {
      const body = resolveRef<OpenAPIV3_1.RequestBodyObject>(loose, entry.operation.requestBody);
      for (const [type, media] of Object.entries(body.content ?? {})) {
        lines.add(`request ${op} ${type}`);
        const fields = new Set<string>();
        fieldsOf(loose, media.schema, '', 0, fields);
        for (const field of fields) lines.add(`request field ${op} ${type} ${field}`);
      }
    }
    for (const [status, answer] of Object.entries(entry.operation.responses ?? {})) {
      lines.add(`status ${op} ${status}`);
      const response = resolveRef<OpenAPIV3_1.ResponseObject & { 'x-any-body'?: boolean }>(loose, answer);
      if (response['x-any-body']) {
        lines.add(`answer ${op} ${status} any`);
        continue;
      }
      for (const [type, media] of Object.entries(response.content ?? {})) {
        lines.add(`answer ${op} ${status} ${type}`);
        const fields = new Set<string>();
        fieldsOf(loose, media.schema, '', 0, fields);
        for (const field of fields) lines.add(`answer field ${op} ${status} ${type} ${field}`);
      }
    }
  }
  return [...lines].sort();
}

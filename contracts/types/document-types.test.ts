import { readFileSync } from 'node:fs';
import t from 'tap';
import { openApiTypesText } from './operation-types-text.js';
import { typeText } from './schema-to-ts.js';

// The handlers' and clients' types are written from the document; this
// keeps the committed file what the document says now.

t.test('document-types.d.ts is what the document says (npm run write:types)', async (t) => {
  const committed = readFileSync(new URL('./document-types.d.ts', import.meta.url), 'utf8');
  t.equal(committed, openApiTypesText());
});

t.test('the schema keywords that shape a type', async (t) => {
  t.equal(typeText({ type: 'string' }), 'string');
  t.equal(typeText({ type: ['string', 'null'] }), 'string | null');
  t.equal(typeText({ type: 'integer' }), 'number');
  t.equal(typeText({ enum: ['A', 'B'] }), '"A" | "B"');
  t.equal(typeText({ const: 3 }), '3');
  t.equal(typeText({ $ref: '#/components/schemas/Order' }), 'Schemas["Order"]');
  t.throws(() => typeText({ $ref: '#/components/responses/X' }), /only component schemas/);
  t.equal(typeText({ type: 'array', items: { type: 'boolean' } }), 'Array<boolean>');
  t.equal(typeText(true), 'unknown');
  t.equal(typeText(false), 'never');
  t.equal(
    typeText({
      type: 'object',
      required: ['a'],
      properties: { a: { type: 'string' }, 'b-c': { type: 'number' } },
      additionalProperties: false,
    }),
    '{\n  a: string;\n  "b-c"?: number;\n}',
  );
  t.equal(typeText({ type: 'object', additionalProperties: { type: 'string' } }), '{\n  [key: string]: string;\n}');
  t.equal(
    typeText({ type: 'object', properties: { a: { type: 'number' } }, additionalProperties: { type: 'string' } }),
    '{\n  a?: number;\n  [key: string]: string | number | undefined;\n}',
  );
  t.equal(typeText({ type: 'object', properties: {}, additionalProperties: false }), 'Record<string, never>');
  t.equal(typeText({ oneOf: [{ type: 'string' }, { type: 'null' }] }), 'string | null');
  t.equal(
    typeText({
      type: 'object',
      required: ['k'],
      properties: { k: { type: 'string' } },
      additionalProperties: false,
      anyOf: [{ required: ['k'] }],
    }),
    '{\n  k: string;\n} & (unknown)',
  );
});

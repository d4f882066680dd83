// JSON Schema (the subset our document uses) to TypeScript type text. The
// document is the one declaration of every shape; the server's handlers and
// the clients read their types from what this writes (document-types.d.ts),
// and a test keeps that file equal to what the document says now.

/** The schema keywords that shape a type; the rest (patterns, bounds, descriptions) constrain values only. */
export interface SchemaShape {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  oneOf?: SchemaShape[];
  anyOf?: SchemaShape[];
  items?: SchemaShape;
  properties?: Record<string, SchemaShape>;
  required?: string[];
  additionalProperties?: boolean | SchemaShape;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `#/components/schemas/Order` → `Schemas['Order']`, within the written file. */
const refType = (ref: string): string => {
  const name = /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
  if (!name) throw new Error(`unsupported $ref ${ref}: only component schemas are typed`);
  return `Schemas[${JSON.stringify(name)}]`;
};

const union = (parts: string[]): string => {
  const unique = [...new Set(parts)];
  return unique.length === 1
    ? unique[0]!
    : unique.map((part) => (part.includes('=>') ? `(${part})` : part)).join(' | ');
};

const propertyKey = (name: string): string => (IDENTIFIER.test(name) ? name : JSON.stringify(name));

function objectType(schema: SchemaShape, indent: string): string {
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = Object.entries(schema.properties ?? {}).map(
    ([name, property]) => `${inner}${propertyKey(name)}${required.has(name) ? '' : '?'}: ${typeText(property, inner)};`,
  );
  const extra = schema.additionalProperties;
  if (extra !== false) {
    // Named properties must fit the index signature, so it is the union of theirs and the others' type.
    const named = Object.values(schema.properties ?? {}).map((property) => typeText(property, inner));
    const value = typeof extra === 'object' ? union([typeText(extra, inner), ...named]) : 'unknown';
    lines.push(
      `${inner}[key: string]: ${value}${typeof extra === 'object' && named.length > 0 ? ' | undefined' : ''};`,
    );
  }
  return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('\n')}\n${indent}}`;
}

function typeOfName(name: string, schema: SchemaShape, indent: string): string {
  switch (name) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return schema.items ? `Array<${typeText(schema.items, indent)}>` : 'unknown[]';
    case 'object':
      return objectType(schema, indent);
    default:
      throw new Error(`unsupported type ${name}`);
  }
}

/** The TypeScript type a value valid against `schema` has. */
export function typeText(schema: SchemaShape | boolean, indent = ''): string {
  if (schema === true) return 'unknown';
  if (schema === false) return 'never';
  if (schema.$ref) return refType(schema.$ref);
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return union(schema.enum.map((value) => JSON.stringify(value)));
  const alternatives = schema.oneOf ?? schema.anyOf;
  if (alternatives) {
    // Keywords beside oneOf (an object's properties, say) apply to every alternative.
    const { oneOf: _one, anyOf: _any, ...beside } = schema;
    const shared = beside.type || beside.properties ? typeText(beside, indent) : undefined;
    const each = union(alternatives.map((alternative) => typeText(alternative, indent)));
    return shared ? `${shared} & (${each})` : each;
  }
  if (schema.type === undefined) return schema.properties ? objectType(schema, indent) : 'unknown';
  const names = Array.isArray(schema.type) ? schema.type : [schema.type];
  return union(names.map((name) => typeOfName(name, schema, indent)));
}

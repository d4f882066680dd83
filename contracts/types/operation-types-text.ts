import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations, openApiDocument } from '../openapi.js';
import { typeText, type SchemaShape } from './schema-to-ts.js';

const HEADER = `// Written by contracts/types/write-types.ts from the OpenAPI document; do not edit.
// Schemas: every component schema. Operations: what each operation's handler
// receives once the request is validated (coerced query included), and the
// security scheme that admitted it.
`;

type Parameter = OpenAPIV3_1.ParameterObject;

function parametersType(parameters: Parameter[], where: 'path' | 'query', indent: string): string {
  const own = parameters.filter((parameter) => parameter.in === where);
  if (own.length === 0) return 'Record<string, never>';
  const lines = own.map(
    (parameter) =>
      `${indent}  ${JSON.stringify(parameter.name)}${parameter.required || where === 'path' ? '' : '?'}: ${typeText(
        (parameter.schema ?? true) as SchemaShape,
        `${indent}  `,
      )};`,
  );
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function bodyType(operation: OpenAPIV3_1.OperationObject, indent: string): string {
  const body = operation.requestBody as OpenAPIV3_1.RequestBodyObject | undefined;
  const media = body ? Object.values(body.content)[0] : undefined;
  if (!media?.schema) return 'undefined';
  const type = typeText(media.schema as SchemaShape, indent);
  return body?.required ? type : `${type} | undefined`;
}

/** The security scheme an operation is admitted by; 'none' for public ones. */
function securityOf(operation: OpenAPIV3_1.OperationObject, doc: OpenAPIV3_1.Document): string {
  const schemes = (operation.security ?? doc.security ?? []).flatMap((requirement) => Object.keys(requirement));
  return schemes.length === 0 ? "'none'" : schemes.map((scheme) => JSON.stringify(scheme)).join(' | ');
}

/** The text of openapi-types.ts for `doc`. */
export function openApiTypesText(doc: OpenAPIV3_1.Document = openApiDocument): string {
  const schemas = Object.entries(doc.components?.schemas ?? {}).map(
    ([name, schema]) => `  ${JSON.stringify(name)}: ${typeText(schema as SchemaShape, '  ')};`,
  );
  // One entry per handler: the operation itself, or (for a handler only aliases name) the first of them.
  const entries = listOperations(doc);
  const byHandler = new Map<string, (typeof entries)[number]>();
  for (const entry of entries)
    if (!byHandler.has(entry.handlerId) || entry.operationId === entry.handlerId) byHandler.set(entry.handlerId, entry);
  const operations = [...byHandler].map(([operationId, { operation }]) => {
    const parameters = (operation.parameters ?? []) as Parameter[];
    return [
      `  ${operationId}: {`,
      `    body: ${bodyType(operation, '    ')};`,
      `    params: ${parametersType(parameters, 'path', '    ')};`,
      `    query: ${parametersType(parameters, 'query', '    ')};`,
      `    security: ${securityOf(operation, doc)};`,
      `  };`,
    ].join('\n');
  });
  return `${HEADER}\nexport interface Schemas {\n${schemas.join('\n')}\n}\n\nexport interface Operations {\n${operations.join('\n')}\n}\n`;
}

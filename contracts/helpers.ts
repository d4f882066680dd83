import type { OpenAPIV3_1 } from 'openapi-types';

// Small builders shared by the document's parts.

export type Schema = OpenAPIV3_1.SchemaObject;

/** A string format that is ours alone, not the interface's (skipped by the `interface` profile, profiles.ts). */
export const oursPattern = (pattern: string): Schema => ({ type: 'string', pattern, 'x-ours': ['pattern'] }) as Schema;
/** A schema with required fields the interface does not fix (profiles.ts). */
export const withOursRequired = (names: string[], schema: Schema): Schema =>
  ({ ...schema, 'x-ours-required': names }) as unknown as Schema;
/** A schema some of whose fields are ours (profiles.ts): the interface document leaves them out. */
export const withOursProperties = (names: string[], schema: Schema): Schema =>
  ({ ...schema, 'x-ours-properties': names }) as unknown as Schema;
/** A response whose body and media type are ours (profiles.ts). */
export const oursResponse = <R extends object>(response: R): R => ({ ...response, 'x-ours': true });

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'patch' | 'head' | 'options';
export type Operation = OpenAPIV3_1.OperationObject<{
  'x-ours'?: boolean;
  'x-ours-statuses'?: string[];
  'x-listing-optional'?: boolean;
  'x-alias-of'?: string;
  'x-raw-body'?: boolean;
}>;
/**
 * Path items typed with 3.1 operations only: openapi-types' PathItemObject
 * for 3.1 also intersects the 3.0 shape, which no 3.1 operation satisfies.
 */
export type PathItems = Record<string, Partial<Record<HttpMethod, Operation>>>;

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const responseRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

export const isoTime: Schema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  description: 'ISO 8601 UTC with milliseconds.',
  examples: ['2026-11-21T10:00:00.000Z'],
};

/** An object schema that allows no undeclared property, so a leaked field fails validation. */
export const closed = (
  required: string[],
  properties: Record<string, Schema | { $ref: string }>,
  description?: string,
): Schema => ({
  type: 'object',
  ...(description ? { description } : {}),
  required,
  properties,
  additionalProperties: false,
});

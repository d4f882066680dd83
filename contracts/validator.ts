import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import formatsPlugin from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import { DECIMAL_PLACES_KEYWORD, hasAtMostDecimals } from './money-amount.js';

const SCHEMA_BASE = 'https://svc.invalid/schemas/';
const LOCAL_REF = '#/components/schemas/';

export interface SchemaIssue {
  /** JSON pointer inside the validated value. */
  pointer: string;
  message: string;
}

type AnySchema = OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject | Record<string, unknown>;

/**
 * Compiles the document's schemas once with Ajv (JSON Schema 2020-12, the
 * dialect of OpenAPI 3.1) and validates values against any schema of it.
 * Component references are rewritten to absolute ids, so each schema
 * compiles on its own and strict mode still catches typos in schemas.
 */
export class SchemaValidator {
  private readonly ajv: Ajv2020;
  private readonly cache = new WeakMap<object, ValidateFunction>();

  constructor(doc: OpenAPIV3_1.Document, options: { coerceTypes?: boolean; strict?: boolean } = {}) {
    this.ajv = new Ajv2020({
      allErrors: true,
      strict: options.strict ?? true,
      validateFormats: true,
      strictRequired: false,
      coerceTypes: options.coerceTypes ?? false,
    });
    addDecimalPlaces(this.ajv);
    // ajv-formats is CommonJS; under NodeNext its plugin sits on `default`.
    (formatsPlugin as unknown as { default: (ajv: Ajv2020) => void }).default(this.ajv);
    this.ajv.addVocabulary([
      'discriminator',
      'xml',
      'externalDocs',
      'example',
      'x-ours',
      'x-ours-required',
      'x-ours-properties',
    ]);
    for (const [name, schema] of Object.entries(doc.components?.schemas ?? {})) {
      this.ajv.addSchema({ ...(absolutise(schema) as object), $id: `${SCHEMA_BASE}${name}` });
    }
  }

  /** Compiles a schema of the document (or a reference into it) once; later calls reuse it. */
  compile(schema: AnySchema): ValidateFunction {
    const cached = this.cache.get(schema);
    if (cached) return cached;
    const validate = this.ajv.compile(absolutise(schema) as object);
    this.cache.set(schema, validate);
    return validate;
  }

  /** Validates (and, with coerceTypes, converts in place); answers the issues, none when valid. */
  check(schema: AnySchema, value: unknown): SchemaIssue[] {
    const validate = this.compile(schema);
    return validate(value) ? [] : toIssues(validate.errors ?? []);
  }
}

/**
 * `x-decimal-places: N`: a number written with at most N decimals, judged
 * exactly on its shortest decimal text (money-amount.ts), where a floating
 * `multipleOf` refused valid amounts such as 1234567.89.
 */
function addDecimalPlaces(ajv: Ajv2020): void {
  const validate = (places: number, value: number): boolean => {
    if (hasAtMostDecimals(value, places)) return true;
    validate.errors = [
      {
        keyword: DECIMAL_PLACES_KEYWORD,
        message: `must have at most ${places} decimal places`,
        params: { limit: places },
      },
    ];
    return false;
  };
  validate.errors = undefined as undefined | Array<Partial<ErrorObject>>;
  ajv.addKeyword({ keyword: DECIMAL_PLACES_KEYWORD, type: 'number', schemaType: 'number', errors: true, validate });
}

/** Turns Ajv errors into one issue per offending field, pointing at the field itself. */
export function toIssues(errors: ErrorObject[]): SchemaIssue[] {
  return errors.map((error) => {
    const params = error.params as { missingProperty?: string; additionalProperty?: string };
    if (error.keyword === 'required' && params.missingProperty !== undefined) {
      return { pointer: `${error.instancePath}/${escapePointer(params.missingProperty)}`, message: 'is required' };
    }
    if (error.keyword === 'additionalProperties' && params.additionalProperty !== undefined) {
      return {
        pointer: `${error.instancePath}/${escapePointer(params.additionalProperty)}`,
        message: 'is not an allowed field',
      };
    }
    return { pointer: error.instancePath, message: error.message ?? `fails ${error.keyword}` };
  });
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** `Name` to its id; `Name/properties/x` (a pointer into a component, as other documents write) to the id and a fragment. */
function absoluteRef(rest: string): string {
  const slash = rest.indexOf('/');
  return slash === -1 ? `${SCHEMA_BASE}${rest}` : `${SCHEMA_BASE}${rest.slice(0, slash)}#${rest.slice(slash)}`;
}

function absolutise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absolutise);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith(LOCAL_REF)
        ? absoluteRef(inner.slice(LOCAL_REF.length))
        : absolutise(inner);
  }
  return out;
}

/** Follows a `#/components/...` reference inside the document. */
export function resolveRef<T>(doc: OpenAPIV3_1.Document, value: T | OpenAPIV3_1.ReferenceObject): T {
  let current: unknown = value;
  for (let hops = 0; hops < 10; hops += 1) {
    const ref = (current as { $ref?: unknown })?.$ref;
    if (typeof ref !== 'string') return current as T;
    if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, key) => (node as Record<string, unknown>)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        doc,
      );
    if (current === undefined) throw new Error(`unresolved reference ${ref}`);
  }
  throw new Error('reference chain too long');
}

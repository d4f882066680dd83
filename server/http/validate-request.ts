import type { Middleware } from 'koa';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { OperationEntry } from '../../contracts/openapi.js';
import { resolveRef, type SchemaIssue, type SchemaValidator } from '../../contracts/validator.js';
import { appError, type ErrorDetail } from '../errors.js';
import type { AppState } from './context.js';
import { parseBody } from './read-body.js';

export interface RequestValidators {
  /** For JSON bodies: no type coercion. */
  exact: SchemaValidator;
  /** For path, query and form values, which arrive as strings. */
  coercing: SchemaValidator;
}

/**
 * Validates path parameters, query parameters and the body of one operation
 * against the document before its handler runs, so input rules live in the
 * document only. Unknown query parameters are ignored; every problem found
 * is reported, each with its JSON pointer.
 */
export function validateRequest(
  doc: OpenAPIV3_1.Document,
  entry: OperationEntry,
  validators: RequestValidators,
): Middleware<AppState> {
  const parameters = (entry.operation.parameters ?? []).map((p) => resolveRef<OpenAPIV3_1.ParameterObject>(doc, p));
  const pathParameters = parameters.filter((p) => p.in === 'path');
  const queryParameters = parameters.filter((p) => p.in === 'query');
  const pathSchema = objectSchema(pathParameters);
  const querySchema = objectSchema(queryParameters);
  const integerPath = integerNames(doc, pathParameters);
  const integerQuery = integerNames(doc, queryParameters);
  // `x-raw-body` operations take any body as bytes (the default receivers accept anything).
  const rawBody = (entry.operation as { 'x-raw-body'?: boolean })['x-raw-body'] === true;
  const requestBody =
    entry.operation.requestBody && !rawBody
      ? resolveRef<OpenAPIV3_1.RequestBodyObject>(doc, entry.operation.requestBody)
      : undefined;
  const mediaTypes = Object.keys(requestBody?.content ?? {});

  return async (ctx, next) => {
    const details: ErrorDetail[] = [];
    const params = { ...ctx.params } as Record<string, string>;
    if (pathParameters.length > 0) {
      details.push(...located('path', takeIntegers(integerPath, params)));
      details.push(...located('path', validators.coercing.check(pathSchema, params)));
    }
    // Undeclared query parameters are ignored, so an operation that declares none skips the parse.
    const query: Record<string, unknown> = queryParameters.length > 0 ? { ...ctx.query } : {};
    if (queryParameters.length > 0) {
      details.push(...located('query', takeIntegers(integerQuery, query)));
      details.push(...located('query', validators.coercing.check(querySchema, query)));
    }

    if (requestBody) {
      const body = parseBody(ctx.state.rawBody ?? Buffer.alloc(0), ctx.get('content-type'), mediaTypes);
      if (body === undefined) {
        if (requestBody.required) details.push({ in: 'body', pointer: '', message: 'a request body is required' });
      } else {
        const mediaType = ctx.get('content-type').split(';')[0]!.trim().toLowerCase();
        const schema = requestBody.content[mediaType]?.schema;
        const validator = mediaType === 'application/json' ? validators.exact : validators.coercing;
        if (schema) details.push(...located('body', validator.check(schema, body)));
        ctx.state.body = body;
      }
    }
    if (details.length > 0) throw appError('VALIDATION_FAILED', details);
    ctx.state.params = params;
    ctx.state.query = query;
    await next();
  };
}

/** Decimal digits with an optional minus: what an integer parameter may be written as. */
const DECIMAL_INTEGER = /^-?[0-9]+$/;

/** Names of the parameters whose schema is an integer. */
function integerNames(doc: OpenAPIV3_1.Document, parameters: OpenAPIV3_1.ParameterObject[]): string[] {
  return parameters
    .filter((p) => resolveRef<OpenAPIV3_1.SchemaObject>(doc, p.schema ?? {}).type === 'integer')
    .map((p) => p.name);
}

/**
 * Integer parameters are parsed here, not by the validator's coercion, which
 * takes any text JavaScript reads as a number: `1e309` became Infinity and
 * passed every bound (a store then failed on it with a 5xx), `0x10`, ` 5`
 * and `1e3` passed as numbers, and `9007199254740993` silently became
 * another number. A value must be decimal digits (an optional minus) and a
 * safe integer; it is then replaced by that number, and the schema checks
 * its range. Anything else is a 400 naming the parameter, and is left out
 * of the schema check so it is reported once.
 */
function takeIntegers(names: string[], values: Record<string, unknown>): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const name of names) {
    const raw = values[name];
    if (typeof raw !== 'string') continue; // absent, or repeated: the schema says what is wrong
    const number = Number(raw);
    if (DECIMAL_INTEGER.test(raw) && Number.isSafeInteger(number)) {
      values[name] = number === 0 ? 0 : number; // -0 reads as 0
      continue;
    }
    issues.push({
      pointer: `/${name}`,
      message: 'must be a whole number written in decimal digits, at most 9007199254740991',
    });
    delete values[name];
  }
  return issues;
}

function objectSchema(parameters: OpenAPIV3_1.ParameterObject[]): Record<string, unknown> {
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p) => [p.name, p.schema ?? {}])),
    required: parameters.filter((p) => p.required).map((p) => p.name),
  };
}

function located(part: ErrorDetail['in'], issues: SchemaIssue[]): ErrorDetail[] {
  return issues.map((issue) => ({ in: part, ...issue }));
}

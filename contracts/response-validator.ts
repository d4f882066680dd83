import type { OpenAPIV3_1 } from 'openapi-types';
import { listOperations, openApiDocument, type OperationEntry } from './openapi.js';
import { resolveRef, SchemaValidator } from './validator.js';

export interface ObservedResponse {
  method: string;
  /** The request path as sent, without the query. */
  path: string;
  status: number;
  headers: Headers;
  /** The body as text ('' when empty). */
  text: string;
}

/** Whether HTTP itself gives this answer no content. */
const carriesNoContent = (response: ObservedResponse) =>
  response.status === 204 || response.status === 304 || response.method.toUpperCase() === 'HEAD';

export interface Violation {
  operation: string;
  status: number;
  /** JSON pointer in the body, or `header:<name>`, or '' for the answer as a whole. */
  pointer: string;
  expected: string;
  got: string;
}

interface CompiledPath {
  template: string;
  pattern: RegExp;
  operations: Map<string, OperationEntry>;
}

/**
 * Checks an HTTP answer against the document: the status must be documented
 * for the operation, the media type declared, the body valid against the
 * schema, and required headers present and valid. Paths that match no
 * documented path may answer only 404, and a documented path with another
 * method only 405 with Allow, both with the Error schema.
 */
export class ResponseValidator {
  private readonly paths: CompiledPath[];
  private readonly schemas: SchemaValidator;
  /** What judges the error body of an undocumented route (404, 405): the document's own Error, or `errorBodies`'. */
  private readonly errors: SchemaValidator;

  /**
   * `strict: false` for a document not ours (a served one): unknown keywords and formats are let through.
   * `errorBodies`: the document whose `Error` schema judges the body of a 404 or 405 on an undocumented
   * route, when this one has no schema of that name (a served document may name its components otherwise).
   */
  constructor(
    private readonly doc: OpenAPIV3_1.Document = openApiDocument,
    options: { strict?: boolean; errorBodies?: OpenAPIV3_1.Document } = {},
  ) {
    this.schemas = new SchemaValidator(doc, { strict: options.strict ?? true });
    this.errors =
      doc.components?.schemas?.Error || !options.errorBodies
        ? this.schemas
        : new SchemaValidator(options.errorBodies, { strict: false });
    const byPath = new Map<string, CompiledPath>();
    // A served document need not name its operations (open choice operation-ids): they are told apart by method and path.
    for (const entry of listOperations(doc, { requireIds: options.strict ?? true })) {
      let compiled = byPath.get(entry.path);
      if (!compiled) {
        compiled = { template: entry.path, pattern: templatePattern(entry.path), operations: new Map() };
        byPath.set(entry.path, compiled);
      }
      compiled.operations.set(entry.method.toUpperCase(), entry);
    }
    // Literal segments win over parameters, as in the router.
    this.paths = [...byPath.values()].sort((a, b) => literalWeight(b.template) - literalWeight(a.template));
  }

  /** The documented operation a request lands on, if any. */
  operationFor(method: string, path: string): OperationEntry | undefined {
    return this.paths.find((p) => p.pattern.test(path))?.operations.get(method.toUpperCase());
  }

  check(response: ObservedResponse): Violation[] {
    const method = response.method.toUpperCase();
    const matched = this.paths.find((p) => p.pattern.test(response.path));
    const entry = matched?.operations.get(method) ?? (method === 'HEAD' ? matched?.operations.get('GET') : undefined);
    if (!matched) return this.checkError(response, `${method} ${response.path}`, 404);
    if (!entry) {
      if (method === 'OPTIONS' && response.status === 204) return [];
      const violations = this.checkError(response, `${method} ${matched.template}`, 405);
      if (!response.headers.get('allow'))
        violations.push(
          violation(`${method} ${matched.template}`, response.status, 'header:allow', 'an Allow header', 'none'),
        );
      return violations;
    }
    return this.checkOperation(entry, response);
  }

  private checkError(response: ObservedResponse, operation: string, status: number): Violation[] {
    if (response.status !== status)
      return [
        violation(operation, response.status, '', `status ${status} (undocumented route)`, `status ${response.status}`),
      ];
    return this.checkBody(operation, response, 'application/json', { $ref: '#/components/schemas/Error' }, this.errors);
  }

  private checkOperation(entry: OperationEntry, response: ObservedResponse): Violation[] {
    const name = entry.operationId;
    const responses = entry.operation.responses ?? {};
    const declared =
      responses[String(response.status)] ?? responses[`${String(response.status)[0]}XX`] ?? responses.default;
    if (!declared) {
      return [
        violation(
          name,
          response.status,
          '',
          `one of the documented statuses ${Object.keys(responses).join(', ')}`,
          `status ${response.status}`,
        ),
      ];
    }
    const spec = resolveRef<OpenAPIV3_1.ResponseObject>(this.doc, declared);
    const violations: Violation[] = [];
    for (const [header, headerSpec] of Object.entries(spec.headers ?? {})) {
      const resolved = resolveRef<OpenAPIV3_1.HeaderObject>(this.doc, headerSpec);
      const value = response.headers.get(header);
      if (value === null) {
        if (resolved.required)
          violations.push(violation(name, response.status, `header:${header}`, 'the header present', 'missing'));
        continue;
      }
      if (resolved.schema) {
        const coerced = coerceHeader(value, resolved.schema as OpenAPIV3_1.SchemaObject);
        for (const issue of this.schemas.check(resolved.schema, coerced)) {
          violations.push(violation(name, response.status, `header:${header}`, issue.message, value));
        }
      }
    }
    // An answer whose body the interface leaves open (profiles.ts, open choice success-status).
    if ((spec as { 'x-any-body'?: boolean })['x-any-body'] === true) return violations;
    const content = spec.content ?? {};
    const mediaTypes = Object.keys(content);
    // HTTP gives a 204, a 304 and any answer to HEAD no content (RFC 9110 §6.4.1), whatever a document declares:
    // none is required of them, and none may come.
    if (carriesNoContent(response)) {
      if (response.text !== '')
        violations.push(
          violation(name, response.status, '', 'no content (HTTP forbids it here)', truncate(response.text)),
        );
      return violations;
    }
    if (mediaTypes.length === 0) {
      if (response.text !== '')
        violations.push(violation(name, response.status, '', 'an empty body', truncate(response.text)));
      return violations;
    }
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    const mediaType = mediaTypes.find((type) => type === contentType);
    if (!mediaType)
      return [
        ...violations,
        violation(name, response.status, 'header:content-type', mediaTypes.join(' or '), contentType || 'none'),
      ];
    return [...violations, ...this.checkBody(name, response, mediaType, content[mediaType]!.schema)];
  }

  private checkBody(
    operation: string,
    response: ObservedResponse,
    mediaType: string,
    schema: unknown,
    schemas: SchemaValidator = this.schemas,
  ): Violation[] {
    if (mediaType !== 'application/json') return [];
    const contentType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (contentType !== 'application/json')
      return [violation(operation, response.status, 'header:content-type', 'application/json', contentType || 'none')];
    let body: unknown;
    try {
      body = JSON.parse(response.text);
    } catch {
      return [violation(operation, response.status, '', 'a JSON body', truncate(response.text))];
    }
    if (!schema) return [];
    return schemas
      .check(schema as object, body)
      .map((issue) =>
        violation(
          operation,
          response.status,
          issue.pointer,
          issue.message,
          truncate(JSON.stringify(pointerValue(body, issue.pointer)) ?? 'undefined'),
        ),
      );
  }
}

function violation(operation: string, status: number, pointer: string, expected: string, got: string): Violation {
  return { operation, status, pointer, expected, got };
}

function templatePattern(template: string): RegExp {
  const source = template
    .split(/\{[^}]+\}/)
    .map((literal) => literal.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
    .join('[^/]+');
  return new RegExp(`^${source}/?$`);
}

function literalWeight(template: string): number {
  return (
    template.split('/').filter((segment) => segment && !segment.startsWith('{')).length * 1000 -
    template.split('/').length
  );
}

function coerceHeader(value: string, schema: OpenAPIV3_1.SchemaObject): unknown {
  return schema.type === 'integer' || schema.type === 'number' ? Number(value) : value;
}

/** The value at a JSON pointer of a parsed body. */
export function pointerValue(body: unknown, pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .reduce<unknown>(
      (node, key) => (node as Record<string, unknown> | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      body,
    );
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

export function formatViolations(violations: Violation[]): string {
  return violations
    .map((v) => `${v.operation} ${v.status} ${v.pointer || '(answer)'}: expected ${v.expected}, got ${v.got}`)
    .join('\n');
}

import type { OpenAPIV3_1 } from 'openapi-types';
import { OPEN_SUCCESS_OPERATIONS } from './open-choices.js';
import { listOperations } from './openapi.js';

// The two profiles of the contract suite. `strict` holds a deployment to
// this document as it is. `interface` holds it only to what the interface
// interface fix, so that another implementation of the same
// interface (a team's mock, the vendor's sandbox) is judged on the
// interface, not on choices of ours. What is ours alone is marked in the
// document with extensions, and `interfaceDocument` takes it out:
//
// - `x-ours: [keyword…]` on a schema: those keywords are ours (an id
//   format such as `ses_` + 18 hex characters; ids are opaque strings in
//   the interface);
// - `x-ours-required: [name…]` on a schema: those required fields are ours;
// - `x-ours-properties: [name…]` on a schema: those fields are ours (the
//   resend's `url`): the interface document has no such field to probe;
// - `x-ours: true` on a response: its body and media type are ours (the
//   three stop mocks: the interface fixes only that they answer 200 with
//   x-svc-sim: mock; the payment page's 404, an HTML page of ours);
// - `x-ours-statuses: [status…]` on an operation: those answers are ours
//   (the relay's 426 to a plain GET): in the interface document, another
//   implementation may answer that case as it likes;
// - `x-ours: true` on an operation: an operation the interface does not
//   have (the live trace stream, the landing page…);
// - `x-listing-optional: true` on an operation, and every alias
//   (`x-alias-of`): the interface has it, but a served document need not
//   list it (the document itself; the /__test__ aliases);
// - closed objects (`additionalProperties: false`) are ours throughout:
//   the interface leaves every resource's other fields "not shown";
// - the success status of the operations in OPEN_SUCCESS_OPERATIONS
//   (open-choices.ts): any 2xx, with any body or none, stands for ours.

export type Profile = 'interface' | 'strict';
export const profiles: readonly Profile[] = ['interface', 'strict'];

type Node = Record<string, unknown>;

function stripSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(stripSchema);
  if (!node || typeof node !== 'object') return node;
  const source = node as Node;
  const out: Node = {};
  const oursKeywords = Array.isArray(source['x-ours']) ? (source['x-ours'] as string[]) : [];
  const oursProperties = Array.isArray(source['x-ours-properties']) ? (source['x-ours-properties'] as string[]) : [];
  const oursRequired = [
    ...(Array.isArray(source['x-ours-required']) ? (source['x-ours-required'] as string[]) : []),
    ...oursProperties,
  ];
  for (const [key, value] of Object.entries(source)) {
    if (oursKeywords.includes(key)) continue;
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'required' && Array.isArray(value)) {
      out.required = (value as string[]).filter((name) => !oursRequired.includes(name));
      continue;
    }
    if (key === 'properties' && value && typeof value === 'object') {
      out.properties = stripSchema(
        Object.fromEntries(Object.entries(value as Node).filter(([name]) => !oursProperties.includes(name))),
      );
      continue;
    }
    out[key] = stripSchema(value);
  }
  return out;
}

/** Any answer, any media type, any body or none: what the interface leaves open. */
const anyAnswer = (description: string): Node => ({ description, 'x-any-body': true });

function stripResponse(response: Node): Node {
  if (response['x-ours'] !== true) return stripSchema(response) as Node;
  return { ...(stripSchema({ ...response, content: undefined }) as Node), content: undefined, 'x-any-body': true };
}

/** An operation's answers as the interface has them: those ours alone out, and any other answer left open where some were ours. */
function interfaceResponses(op: Node): Node {
  const oursStatuses = Array.isArray(op['x-ours-statuses']) ? (op['x-ours-statuses'] as string[]) : [];
  const kept = Object.entries((op.responses ?? {}) as Node).filter(([status]) => !oursStatuses.includes(status));
  const responses: Node = Object.fromEntries(kept.map(([status, r]) => [status, stripResponse(r as Node)]));
  if (oursStatuses.length > 0)
    responses.default = anyAnswer(`Left open by the interface (ours: ${oursStatuses.join(', ')}).`);
  return responses;
}

/** The document as the `interface` profile checks against: what is ours alone taken out. */
export function interfaceDocument(doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const paths: Node = {};
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const kept: Node = {};
    for (const [method, operation] of Object.entries(item as Node)) {
      const op = operation as Node;
      if (op['x-ours'] === true) continue;
      let responses = interfaceResponses(op);
      if (OPEN_SUCCESS_OPERATIONS.has(String(op.operationId)))
        responses = openSuccess(responses, String(op.operationId));
      kept[method] = { ...(stripSchema(op) as Node), responses };
    }
    if (Object.keys(kept).length > 0) paths[path] = kept;
  }
  const components = doc.components ?? {};
  return {
    ...doc,
    paths: paths as OpenAPIV3_1.PathsObject,
    components: {
      ...components,
      schemas: stripSchema(components.schemas ?? {}) as OpenAPIV3_1.ComponentsObject['schemas'],
      responses: Object.fromEntries(
        Object.entries(components.responses ?? {}).map(([name, r]) => [name, stripResponse(r as Node)]),
      ) as OpenAPIV3_1.ComponentsObject['responses'],
    },
  };
}

/** Any 2xx (and, for the payment page's form, a 3xx), with any body or none, in place of our success answers. */
function openSuccess(responses: Node, operationId: string): Node {
  const kept = Object.fromEntries(Object.entries(responses).filter(([status]) => !/^[23]/.test(status)));
  return {
    ...kept,
    '2XX': anyAnswer('Success: the status and body are left open by the interface (open choice success-status).'),
    ...(operationId === 'payPaymentPage'
      ? { '3XX': anyAnswer('A redirect to the result, as a form post may answer.') }
      : {}),
  };
}

/** Operations of the document the interface does not have (`x-ours: true`). */
export function oursOnlyOperations(doc: OpenAPIV3_1.Document): Set<string> {
  return new Set(
    listOperations(doc)
      .filter((entry) => (entry.operation as Node)['x-ours'] === true)
      .map((entry) => entry.operationId),
  );
}

/** Whether a served document may leave the operation out: the document itself, and every alias. */
export const listingOptional = (entry: OperationEntryLike): boolean => {
  const op = entry.operation as Node;
  return op['x-listing-optional'] === true || op['x-alias-of'] !== undefined;
};

/** The operations a served document must list: the interface's, but for those it need not. */
export function listedOperations(doc: OpenAPIV3_1.Document): OperationEntryLike[] {
  return listOperations(interfaceDocument(doc)).filter((entry) => !listingOptional(entry));
}

type OperationEntryLike = ReturnType<typeof listOperations>[number];

export function documentFor(profile: Profile, doc: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  return profile === 'strict' ? doc : interfaceDocument(doc);
}

import type { OpenAPIV3_1 } from 'openapi-types';
import { documentFor, listedOperations, listingOptional } from '../../profiles.js';
import { listOperations, openApiDocument } from '../../openapi.js';
import { ResponseValidator } from '../../response-validator.js';
import type { Expectations } from '../expectations.js';
import type { ObservedAnswer } from '../recorder.js';
import type { SuiteResponse } from '../suite-client.js';

// The document a deployment serves at GET /openapi.json (INTERFACE.md §0). In
// `interface`, it must hold every operation of the interface and the
// answers seen must validate against it; in `strict`, it must be ours.

const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');
// By method and path: operationIds are optional in a served document (open choice operation-ids).
const operationsOf = (doc: OpenAPIV3_1.Document) =>
  new Set(listOperations(doc, { requireIds: false }).map((e) => `${e.method.toUpperCase()} ${shape(e.path)}`));

export function checkServedDocument(
  expect: Expectations,
  served: SuiteResponse,
  profile: 'interface' | 'strict',
  seen: readonly ObservedAnswer[],
): void {
  if (!expect.status(served, 200)) return;
  const doc = served.body as OpenAPIV3_1.Document | undefined;
  if (!doc || typeof doc !== 'object' || typeof doc.openapi !== 'string' || !doc.paths)
    return void expect.fail(served, '', 'an OpenAPI document (openapi, paths)', served.text.slice(0, 80));
  if (profile === 'strict') {
    expect.that(
      JSON.stringify(doc) === JSON.stringify(openApiDocument),
      served,
      '',
      "this suite's own document, unchanged (strict)",
      differences(doc).slice(0, 5).join('; ') || 'a document that differs',
    );
    return;
  }
  let theirs: Set<string>;
  try {
    theirs = operationsOf(doc);
  } catch (error) {
    return void expect.fail(served, '/paths', 'paths of operations', (error as Error).message);
  }
  // By method and path; the document itself and the /__test__ aliases need not be listed.
  const required = new Set(listedOperations(openApiDocument).map((e) => `${e.method.toUpperCase()} ${shape(e.path)}`));
  const missing = [...required].filter((op) => !theirs.has(op));
  expect.that(
    missing.length === 0,
    served,
    '/paths',
    'every operation of the interface',
    `${missing.length} missing: ${missing.slice(0, 8).join(', ')}`,
  );
  let validator: ResponseValidator;
  try {
    // A 404 or 405 on an undocumented route is judged by the interface's error body (INTERFACE.md §0)
    // when the served document names its components otherwise.
    validator = new ResponseValidator(doc, { strict: false, errorBodies: documentFor('interface', openApiDocument) });
  } catch (error) {
    return void expect.fail(served, '', 'a document whose schemas compile', (error as Error).message);
  }
  // An answer of an operation the served document may leave out (an alias, the document itself) is judged only where it is listed.
  const ours = new ResponseValidator(openApiDocument);
  const unlisted = (answer: ObservedAnswer) => {
    const entry = ours.operationFor(answer.method, answer.path);
    return (
      entry !== undefined && listingOptional(entry) && !theirs.has(`${entry.method.toUpperCase()} ${shape(entry.path)}`)
    );
  };
  let broken = 0;
  const examples: string[] = [];
  for (const answer of seen) {
    if (unlisted(answer)) continue;
    let found;
    try {
      found = validator.check(answer);
    } catch (error) {
      // A schema compiled only when an answer needs it: a reference it cannot resolve is one finding, not a crash.
      return void expect.fail(
        served,
        '',
        'a document whose schemas compile',
        `${answer.method} ${answer.path} ${answer.status}: ${(error as Error).message}`,
      );
    }
    if (found.length === 0) continue;
    broken += 1;
    if (examples.length < 5)
      examples.push(
        `${answer.method} ${answer.path} ${answer.status}: ${found[0]!.pointer || '(answer)'} expected ${found[0]!.expected}, got ${found[0]!.got}`,
      );
  }
  expect.that(
    broken === 0,
    served,
    '',
    `the ${seen.length} answers seen valid against the served document`,
    `${broken} not, e.g. ${examples.join('; ')}`,
  );
}

function differences(doc: OpenAPIV3_1.Document): string[] {
  const ours = operationsOf(openApiDocument);
  const theirs = operationsOf(doc);
  return [
    ...[...ours].filter((op) => !theirs.has(op)).map((op) => `${op} missing`),
    ...[...theirs].filter((op) => !ours.has(op)).map((op) => `${op} added`),
  ];
}

import { listOperations, openApiDocument } from '../../openapi.js';
import type { Profile } from '../../profiles.js';
import { accountChecks } from './account.js';
import type { Check } from './check.js';
import { isolationChecks } from './isolation.js';
import { orderChecks } from './orders.js';
import { sessionChecks } from './sessions.js';
import { settlementChecks } from './settlements.js';
import { stopChecks } from './stops.js';
import { tokenChecks } from './tokens.js';
import { webhookChecks } from './webhooks.js';

// Every check of the suite, by id. The `document.*` checks hold answers to
// the OpenAPI document; the others are behavioural, each a rule of the
// interface with its exact statuses and codes.

export interface CheckInfo {
  id: string;
  title: string;
  source: string;
  operations: string[];
  /** Needs --allow-mutations (it creates data). */
  mutates: boolean;
  strictOnly?: boolean;
  /** The open choices (open-choices.ts) it meets, each accepted whole by `interface`. */
  decisions?: string[];
}

export const documentChecks: CheckInfo[] = [
  {
    id: 'document.read-only',
    title: 'read-only: the public operations and negative GETs, every answer checked against the document',
    source: 'INTERFACE.md §0',
    operations: ['*'],
    mutates: false,
    decisions: ['answer-bodies', 'success-status'],
  },
  {
    id: 'document.scenarios',
    title:
      'every operation exercised with its specific answers, every answer checked against the document (status, media type, headers, body)',
    source: 'INTERFACE.md §0-§8',
    operations: ['*'],
    mutates: true,
    decisions: ['answer-bodies', 'success-status'],
  },
  {
    id: 'document.negatives',
    title:
      'negative requests generated from the document: no credentials, the other token kind, malformed JSON, missing fields, wrong types, bodies over 1 MiB',
    source: 'INTERFACE.md §0, §1',
    operations: ['*'],
    mutates: true,
    decisions: ['not-found-or-invalid-first', 'our-bounds-and-media'],
  },
  {
    id: 'document.rate-brake',
    title: 'with the brake on, every braked operation answers 429 RATE_LIMITED with Retry-After',
    source: 'INTERFACE.md §8 (rate brake)',
    operations: ['*'],
    mutates: true,
  },
  {
    id: 'document.served',
    title:
      'GET /openapi.json: interface, every operation of the interface and the answers seen valid against it; strict, this document',
    source: 'INTERFACE.md §0 (served document)',
    operations: ['getOpenApiDocument'],
    mutates: false,
    decisions: ['operation-ids'],
  },
];

export const behaviouralChecks: Check[] = [
  ...orderChecks,
  ...settlementChecks,
  ...tokenChecks,
  ...isolationChecks,
  ...sessionChecks,
  ...stopChecks,
  ...webhookChecks,
  ...accountChecks,
];

export const checkCatalogue: CheckInfo[] = [
  ...documentChecks,
  ...behaviouralChecks.map(({ id, title, source, operations, strictOnly, decisions }) => ({
    id,
    title,
    source,
    operations,
    mutates: true,
    ...(strictOnly ? { strictOnly } : {}),
    ...(decisions ? { decisions } : {}),
  })),
];

export interface Selection {
  checks?: string[];
  excludeChecks?: string[];
  /** operationIds or tags. */
  operations?: string[];
}

/** `orders` names every `orders.*` check; `orders.lists` one; `*` all. */
const matches = (id: string, pattern: string) => pattern === '*' || id === pattern || id.startsWith(`${pattern}.`);

const tagsOf = new Map(listOperations(openApiDocument).map((e) => [e.operationId, e.operation.tags ?? []]));

/** Whether one of `operations` (ids or tags) is among the check's. */
export function touches(check: Pick<CheckInfo, 'operations'>, operations: string[]): boolean {
  return check.operations.some(
    (op) => op === '*' || operations.includes(op) || (tagsOf.get(op) ?? []).some((tag) => operations.includes(tag)),
  );
}

/** Names in a selection that match nothing: a usage error, not a silent empty run. */
export function unknownNames(selection: Selection): string[] {
  const ids = checkCatalogue.map((c) => c.id);
  const names = [...(selection.checks ?? []), ...(selection.excludeChecks ?? [])].filter(
    (p) => !ids.some((id) => matches(id, p)),
  );
  const operations = new Set([...tagsOf.keys(), ...[...tagsOf.values()].flat()]);
  return [
    ...names.map((n) => `check ${n}`),
    ...(selection.operations ?? []).filter((o) => !operations.has(o)).map((o) => `operation ${o}`),
  ];
}

/** Why a check does not run in this run, or null when it does. */
export function skipReason(
  check: CheckInfo,
  options: { profile: Profile; allowMutations: boolean } & Selection,
): string | null {
  if (check.id === 'document.read-only' && options.allowMutations) return 'the full run (--allow-mutations) covers it';
  if (check.mutates && !options.allowMutations) return 'needs --allow-mutations';
  if (check.strictOnly && options.profile !== 'strict') return 'strict profile only';
  if (options.checks && !options.checks.some((p) => matches(check.id, p))) return 'not selected (--checks)';
  if (options.excludeChecks?.some((p) => matches(check.id, p))) return 'excluded (--exclude-checks)';
  if (options.operations && !touches(check, options.operations))
    return 'touches none of the selected operations (--operation)';
  return null;
}

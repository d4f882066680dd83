import t from 'tap';
import { listOperations, openApiDocument } from './openapi.js';
import { interfaceDocument, oursOnlyOperations } from './profiles.js';
import { SchemaValidator } from './validator.js';

const session = {
  session_id: 'sess-7f1c',
  status: 'pending',
  agreement_id: 'AG-1',
  amount_reference: 10,
  currency_reference: 'USD',
  due_date_session: null,
  due_date_reached_behavior: 'expire',
  webhook_url: null,
  pay_url: 'https://pay.example/s/1',
  created_at: '2026-11-21T10:00:00.000Z',
  accreditation: { status: 'none' },
  session_payment: { id: 'p1', origin: 'button', amount_reference: 10 },
};

t.test('the interface profile takes out what is ours alone and keeps what the interface fixes', async (t) => {
  const loose = new SchemaValidator(interfaceDocument(openApiDocument));
  const strict = new SchemaValidator(openApiDocument);
  const ref = { $ref: '#/components/schemas/PaymentSession' };
  t.same(
    loose.check(ref, { ...session, vendor_field: 1 }),
    [],
    'opaque ids, no description, an extra field: conforming',
  );
  t.same(
    strict
      .check(ref, { ...session, vendor_field: 1 })
      .map((i) => i.pointer)
      .sort(),
    ['/agreement_id', '/description', '/session_id', '/session_payment/id', '/vendor_field'],
    'strict: each of them is ours',
  );
  t.same(
    loose.check(ref, { ...session, status: 'refunded' }).map((i) => i.pointer),
    ['/status'],
    'the statuses INTERFACE.md names still hold',
  );
  const { pay_url: _dropped, ...withoutPayUrl } = session;
  t.same(
    loose.check(ref, withoutPayUrl).map((i) => i.pointer),
    ['/pay_url'],
    'the fields INTERFACE.md names are still required',
  );
  t.same(
    loose.check(
      { $ref: '#/components/schemas/Error' },
      { message: 'm', code: 'VALIDATION_FAILED', details: [{ pointer: '/a' }] },
    ),
    [],
    'error details need only a pointer',
  );

  const ours = oursOnlyOperations(openApiDocument);
  t.same(
    [...ours].sort(),
    [
      'getFavicon',
      'getNextDue',
      'getNextDueViaTestAlias',
      'listConsoleScenarios',
      'getConsoleRelay',
      'getConsoleScenarioRun',
      'listFailedWebhooks',
      'resendFailedWebhooks',
      'sendThroughRelay',
      'sendThroughRelayViaTestAlias',
      'getConsoleScript',
      'getPaymentScript',
      'getConsoleSession',
      'showConsole',
      'showHome',
      'startConsoleScenarioRun',
      'streamConsoleTrace',
    ]
      .filter((id) => listOperations().some((e) => e.operationId === id))
      .sort(),
  );
  const kept = listOperations(interfaceDocument(openApiDocument)).map((e) => e.operationId);
  t.notOk(
    kept.some((id) => ours.has(id)),
    'operations of ours are not in the interface document',
  );
  t.equal(kept.length, listOperations().length - ours.size);
  t.ok(
    JSON.stringify(openApiDocument).includes('"x-ours"'),
    'the marks are in the served document, for anyone to read',
  );
});

t.test(
  'every open choice is named by a check, every name a check gives is an open choice, and the listing shows them',
  async (t) => {
    const { checkCatalogue } = await import('./suite/checks/catalogue.js');
    const { openChoices, OPEN_SUCCESS_OPERATIONS } = await import('./open-choices.js');
    const ids = new Set(openChoices.map((choice) => choice.id));
    const named = checkCatalogue.flatMap((check) =>
      (check.decisions ?? []).map((decision) => [check.id, decision] as const),
    );
    t.same(
      named.filter(([, decision]) => !ids.has(decision)),
      [],
      'no check names an unknown choice',
    );
    const used = new Set(named.map(([, decision]) => decision));
    t.same(
      openChoices.filter((choice) => !used.has(choice.id)).map((choice) => choice.id),
      [],
      'every choice is met by a check',
    );
    const loose = interfaceDocument(openApiDocument);
    for (const entry of listOperations(loose)) {
      if (!OPEN_SUCCESS_OPERATIONS.has(entry.operationId)) continue;
      const statuses = Object.keys(entry.operation.responses ?? {});
      t.ok(
        statuses.includes('2XX') && !statuses.some((status) => /^2\d\d$/.test(status)),
        `${entry.operationId}: any 2xx in the interface profile (${statuses.join(', ')})`,
      );
    }
    t.ok(
      [...OPEN_SUCCESS_OPERATIONS].every((id) =>
        listOperations(openApiDocument).some((entry) => entry.operationId === id),
      ),
      'every open-success operation exists',
    );
  },
);

t.test(
  'a minimal /health is a liveness probe under the interface profile; strict wants the fields of ours',
  async (t) => {
    const loose = new SchemaValidator(interfaceDocument(openApiDocument));
    const strict = new SchemaValidator(openApiDocument);
    const ref = { $ref: '#/components/schemas/Health' };
    t.same(loose.check(ref, { status: 'ok' }), [], 'interface: status alone');
    t.same(
      strict
        .check(ref, { status: 'ok' })
        .map((issue) => issue.pointer)
        .sort(),
      ['/store', '/uptime_s', '/version'],
      'strict: the fields of ours',
    );
  },
);

import type { SuiteHttp } from '../suite-client.js';
import { CheckStopped, type Check, type CheckContext } from './check.js';
import { createOrder, need, provisionTerminal, registerAccount, type SuiteAccount, type Terminal } from './fixtures.js';
import type { JsonAnswer } from '../../json-answer.js';

// Orders (INTERFACE.md §3).

type Status = 'PENDING' | 'PAID' | 'DISCARDED' | 'VOID_PENDING' | 'VOIDED';
type Trigger = 'invalidation' | 'commit' | 'commit with another code' | 'void commit';

/** Every cell of INTERFACE.md's transition table: from, trigger, the status answered, the order's status after. */
export const transitionTable: ReadonlyArray<[Status, Trigger, number, Status]> = [
  ['PENDING', 'invalidation', 200, 'DISCARDED'],
  ['PAID', 'invalidation', 200, 'VOID_PENDING'],
  ['DISCARDED', 'invalidation', 200, 'DISCARDED'],
  ['VOID_PENDING', 'invalidation', 200, 'VOID_PENDING'],
  ['VOIDED', 'invalidation', 409, 'VOIDED'],
  ['PENDING', 'commit', 200, 'PAID'],
  ['PAID', 'commit', 200, 'PAID'],
  ['PAID', 'commit with another code', 409, 'PAID'],
  ['DISCARDED', 'commit', 200, 'PAID'],
  ['VOID_PENDING', 'commit', 409, 'VOID_PENDING'],
  ['VOIDED', 'commit', 409, 'VOIDED'],
  ['PENDING', 'void commit', 409, 'PENDING'],
  ['PAID', 'void commit', 409, 'PAID'],
  ['DISCARDED', 'void commit', 409, 'DISCARDED'],
  ['VOID_PENDING', 'void commit', 200, 'VOIDED'],
  ['VOIDED', 'void commit', 200, 'VOIDED'],
];

const AUTH_CODE = 'CK1';
const paidAt = () => new Date(Date.now() - 60_000).toISOString();

function orderOps(http: SuiteHttp, account: SuiteAccount, terminal: Terminal) {
  const pos = `/api/v1/pos-terminals/${encodeURIComponent(terminal.serial)}/transactions`;
  return {
    invalidate: (orderId: string) =>
      http('POST', `${account.merchant}/transactions/${orderId}/invalidation`, { token: account.token }),
    commit: (orderId: string, body: Record<string, unknown> = {}) =>
      terminal.send('POST', `${pos}/${orderId}/commit`, { authorizationCode: AUTH_CODE, paidAt: paidAt(), ...body }),
    voidCommit: (orderId: string) => terminal.send('POST', `${pos}/${orderId}/invalidation/commit`),
    read: (orderId: string) => http('GET', `${account.merchant}/transactions/${orderId}`, { token: account.token }),
  };
}

/** A new order brought to `status` through the API. */
async function orderIn(http: SuiteHttp, account: SuiteAccount, terminal: Terminal, status: Status): Promise<string> {
  const ops = orderOps(http, account, terminal);
  const orderId = await createOrder(http, account, terminal);
  const steps: Record<Status, Array<() => Promise<unknown>>> = {
    PENDING: [],
    DISCARDED: [() => ops.invalidate(orderId)],
    PAID: [() => ops.commit(orderId)],
    VOID_PENDING: [() => ops.commit(orderId), () => ops.invalidate(orderId)],
    VOIDED: [() => ops.commit(orderId), () => ops.invalidate(orderId), () => ops.voidCommit(orderId)],
  };
  for (const step of steps[status]) await step();
  const now = need(await ops.read(orderId), 200, `reading an order brought to ${status}`)?.data?.status;
  if (now !== status) throw new CheckStopped(`setup: an order taken to ${status} through the API is ${now}`);
  return orderId;
}

async function transitions(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const terminal = await provisionTerminal(http, account);
  const ops = orderOps(http, account, terminal);
  for (const [from, trigger, status, to] of transitionTable) {
    let orderId: string;
    try {
      orderId = await orderIn(http, account, terminal, from);
    } catch (error) {
      // A state this implementation cannot reach fails its row, and the table goes on.
      if (!(error instanceof CheckStopped)) throw error;
      expect.fail(null, '', `an order in ${from}, to try ${trigger} on`, error.message);
      continue;
    }
    const answer =
      trigger === 'invalidation'
        ? await ops.invalidate(orderId)
        : trigger === 'commit'
          ? await ops.commit(orderId)
          : trigger === 'commit with another code'
            ? await ops.commit(orderId, { authorizationCode: 'OTHER9' })
            : await ops.voidCommit(orderId);
    if (!expect.status(answer, status, status === 409 ? 'ORDER_STATE_CONFLICT' : undefined)) continue;
    if (status === 200) expect.equal(answer, '/data/status', to, `${trigger} from ${from}`);
    else expect.equal(answer, '/currentStatus', from, 'a 409 names the status the order is in');
    expect.equal(await ops.read(orderId), '/data/status', to, `after ${trigger} from ${from}`);
    if (from === 'DISCARDED' && trigger === 'commit') {
      const history = (answer.body?.data?.history ?? []) as Array<Record<string, unknown>>;
      const last = history[history.length - 1];
      expect.that(
        last?.from === 'DISCARDED' && last?.to === 'PAID' && last?.overridesDiscard === true,
        answer,
        `/data/history/${history.length - 1}`,
        'the commit that overrides a discard recorded as { from: DISCARDED, to: PAID, overridesDiscard: true }',
        last,
      );
    }
  }
  // Every transition is in the history, in order (INTERFACE.md §3).
  const voided = await orderIn(http, account, terminal, 'VOIDED');
  const read = await ops.read(voided);
  const steps = (
    (read.body?.data?.history ?? []) as Array<{
      from: string;
      to: string;
      trigger?: string;
      actor?: string;
      at?: string;
    }>
  ).map((h) => `${h.from}→${h.to}`);
  expect.that(
    JSON.stringify(steps) === JSON.stringify(['PENDING→PAID', 'PAID→VOID_PENDING', 'VOID_PENDING→VOIDED']),
    read,
    '/data/history',
    'PENDING→PAID, PAID→VOID_PENDING, VOID_PENDING→VOIDED',
    steps.join(', '),
  );
  const mismatch = await orderIn(http, account, terminal, 'PENDING');
  expect.status(await ops.commit(mismatch, { amount: 999_999 }), 422);
  expect.equal(await ops.read(mismatch), '/data/status', 'PENDING', 'a commit refused for its amount changes nothing');
}

async function listFilters(ctx: CheckContext): Promise<void> {
  const { http, expect } = ctx;
  const account = await registerAccount(http);
  const terminal = await provisionTerminal(http, account);
  const other = await provisionTerminal(http, account);
  const pending = await orderIn(http, account, terminal, 'PENDING');
  const paid = await orderIn(http, account, terminal, 'PAID');
  const voidPending = await orderIn(http, account, terminal, 'VOID_PENDING');
  const elsewhere = await orderIn(http, account, other, 'VOID_PENDING');
  const ids = (body: JsonAnswer) => ((body?.data ?? []) as Array<{ orderId: string }>).map((o) => o.orderId);
  for (const [status, present, absent] of [
    ['PAID', [paid], [pending, voidPending]],
    ['PENDING', [pending], [paid]],
    ['VOID_PENDING', [voidPending, elsewhere], [paid, pending]],
  ] as const) {
    const answer = await http('GET', `${account.merchant}/transactions?status=${status}&size=100`, {
      token: account.token,
    });
    if (!expect.status(answer, 200)) continue;
    const listed = ids(answer.body);
    expect.that(
      (answer.body.data as Array<{ status: string }>).every((o) => o.status === status),
      answer,
      '/data',
      `only ${status} orders`,
      (answer.body.data as Array<{ status: string }>).map((o) => o.status).join(','),
    );
    expect.that(
      present.every((id) => listed.includes(id)) && absent.every((id) => !listed.includes(id)),
      answer,
      '/data',
      `${present.join(', ')} listed and ${absent.join(', ')} not`,
      listed.join(', '),
    );
  }
  // The terminal's list: its own orders only, filtered the same way (INTERFACE.md §3).
  const own = await terminal.send(
    'GET',
    `/api/v1/pos-terminals/${encodeURIComponent(terminal.serial)}/transactions?status=VOID_PENDING`,
  );
  if (expect.status(own, 200))
    expect.that(
      ids(own.body).includes(voidPending) && !ids(own.body).includes(elsewhere) && !ids(own.body).includes(paid),
      own,
      '/data',
      `${voidPending} only (not another terminal's ${elsewhere}, not the PAID ${paid})`,
      ids(own.body).join(', '),
    );
  // Bounds (INTERFACE.md §0, §3): out of range answers 400, never clamped.
  for (const query of ['size=0', 'size=101', 'page=0'])
    expect.status(
      await http('GET', `${account.merchant}/transactions?${query}`, { token: account.token }),
      400,
      'VALIDATION_FAILED',
    );
  // A status that is not one of the five: 400 (ours), or a list with no order of another status (open choice unknown-status-filter).
  const unknownStatus = await http('GET', `${account.merchant}/transactions?status=REFUNDED`, { token: account.token });
  if (ctx.profile === 'strict' || unknownStatus.status !== 200) expect.status(unknownStatus, 400, 'VALIDATION_FAILED');
  else
    expect.that(
      ids(unknownStatus.body).length === 0,
      unknownStatus,
      '/data',
      'no order: none is REFUNDED',
      ids(unknownStatus.body).join(', '),
    );
  const full = await http('GET', `${account.merchant}/transactions?size=100`, { token: account.token });
  if (expect.status(full, 200))
    expect.that(ids(full.body).length === 4, full, '/data', 'the 4 orders of the account', ids(full.body).length);
  const paged = await http('GET', `${account.merchant}/transactions?size=3&page=2`, { token: account.token });
  if (expect.status(paged, 200))
    expect.that(
      ids(paged.body).length === 1,
      paged,
      '/data',
      'the 4th order alone on page 2 of size 3',
      ids(paged.body).length,
    );
}

export const orderChecks: Check[] = [
  {
    id: 'orders.transitions',
    title: 'every cell of the order transition table, the 409 body and the amount-mismatch 422',
    source: 'INTERFACE.md §3 (transition table)',
    operations: ['invalidateOrder', 'commitOrderPayment', 'commitOrderVoid', 'getOrder', 'createOrder'],
    run: transitions,
  },
  {
    id: 'orders.lists',
    decisions: ['unknown-status-filter'],
    title: 'order lists filtered by status, the terminal sees its own, paging bounds',
    source: 'INTERFACE.md §3 (lists), §0 (bounds)',
    operations: ['listMerchantOrders', 'listTerminalOrders'],
    run: listFilters,
  },
];

import t from 'tap';
import type { Middleware } from 'koa';
import { signPosRequest } from '../../contracts/clients/pos-client.js';
import type { Account } from '../accounts/account.js';
import { ManualClock } from '../clock.js';
import type { AppContext, AppState } from '../http/context.js';
import type { ClaimedWrite, Store, StoredRecord } from '../store/store.js';
import { posSignatureGuard } from '../http/pos-signature-guard.js';
import { PosSignatures } from './pos-signatures.js';
import type { SignatureClaim, SignatureLedger } from './signature-ledger.js';
import type { TerminalRecord } from './terminal.js';

// The signature and its claims (PosSignatures, and the guard that hands the
// signature to the handler) on a store shared by several instances, with the
// store and the shared claims faked: what each reads, claims and writes, and in which step.
// Through real HTTP and PostgreSQL: server/store/pg-instances.test.ts.

const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const SERIAL = 'SN-1';
const URL = `/api/v1/pos-terminals/${SERIAL}/settlements`;

const terminalOf = (secret: string, extra: Partial<TerminalRecord> = {}) =>
  ({ serialNumber: SERIAL, secret, merchantId: 'M1', account_id: 'A1', ...extra }) as unknown as TerminalRecord;
const accountOf = (clockOffsetMs = 0) =>
  ({ account_id: 'A1', merchant_id: 'M1', clock_offset_ms: clockOffsetMs }) as unknown as Account;

/** The shared store as the fakes have it, and what each was asked. */
function world() {
  const now = {
    terminal: terminalOf('a'.repeat(64)) as TerminalRecord | undefined,
    account: accountOf() as Account | undefined,
    away: undefined as Error | undefined,
  };
  const claimed = new Set<string>();
  const records = new Map<string, StoredRecord>();
  const calls = {
    getLinked: 0,
    claimAndRead: 0,
    claimAndWrite: [] as Array<{
      claim: SignatureClaim;
      basis: { terminal: TerminalRecord; account: Account };
      write: ClaimedWrite;
    }>,
    insertIfAbsent: [] as StoredRecord[],
    replaceIf: 0,
  };
  const claim = (key: string) => (claimed.has(key) ? 'replayed' : (claimed.add(key), 'new' as const));
  const terminalNow = () => ({
    ...(now.terminal ? { terminal: now.terminal } : {}),
    ...(now.terminal && now.account ? { account: now.account } : {}),
  });
  const store = {
    async getLinked() {
      calls.getLinked += 1;
      return [now.terminal, now.terminal ? now.account : undefined];
    },
    async insertIfAbsent(_collection: string, id: string, record: StoredRecord) {
      calls.insertIfAbsent.push(record);
      const there = records.get(id);
      if (!there) records.set(id, record);
      return there;
    },
    async replaceIf(_collection: string, id: string, expected: StoredRecord, next: StoredRecord) {
      calls.replaceIf += 1;
      const there = records.get(id);
      if (!there || JSON.stringify(there) !== JSON.stringify(expected)) return false;
      records.set(id, next);
      return true;
    },
  } as unknown as Store;
  const ledger: SignatureLedger = {
    async claimAndRead(request) {
      calls.claimAndRead += 1;
      return { verdict: claim(request.key), ...terminalNow() };
    },
    async claimAndWrite(request, basis, write) {
      calls.claimAndWrite.push({ claim: request, basis, write });
      if (now.away) throw now.away;
      const verdict = claim(request.key);
      const current =
        now.terminal !== undefined &&
        now.account !== undefined &&
        JSON.stringify(now.terminal) === JSON.stringify(basis.terminal) &&
        now.account.clock_offset_ms === basis.account.clock_offset_ms;
      if (!current) return { verdict, written: false, changed: terminalNow() };
      if (verdict === 'replayed') return { verdict, written: false };
      const there = records.get(write.id);
      if (write.kind === 'replace') {
        const replaced = there !== undefined && JSON.stringify(there) === JSON.stringify(write.expected);
        if (replaced) records.set(write.id, write.value);
        return { verdict, written: replaced };
      }
      if (there) return { verdict, written: false, existing: there };
      records.set(write.id, write.value);
      return { verdict, written: true };
    },
  };
  const clock = new ManualClock(NOW);
  const signatures = new PosSignatures({ store, clock, toleranceSeconds: 300, ledger });
  const guard = posSignatureGuard(signatures);
  let signedAt = NOW;
  /** One request through the guard to `handler`, signed with `secret` (the current one by default) or with the headers given. */
  const request = async (
    handler: Middleware<AppState>,
    options: { secret?: string; headers?: Record<string, string>; serial?: string } = {},
  ) => {
    const body = Buffer.from('{"batchNumber":"B1"}');
    const headers: Record<string, string> =
      options.headers ??
      signPosRequest({
        secret: options.secret ?? now.terminal!.secret,
        method: 'POST',
        url: URL,
        body: body.toString(),
        now: (signedAt += 1),
      });
    const ctx = {
      get: (name: string) => headers[name] ?? '',
      params: { serialNumber: options.serial ?? SERIAL }, // the fakes answer the same terminal for any serial
      originalUrl: URL,
      state: { rawBody: body } as AppState,
    };
    await guard(ctx as never, () => handler(ctx as never, async () => undefined));
    return { ctx, headers };
  };
  return { now, calls, records, request, signatures };
}

let signatures: PosSignatures;
/** Each test's world is the one its handlers write through. */
const worldOf = (): ReturnType<typeof world> => {
  const made = world();
  signatures = made.signatures;
  return made;
};

type Answered<A> = Middleware<AppState> & { answered?: A };

/** A settlement handler, as the settlement service writes: builds its record from the terminal and account it is given, and again from those a write says they are now. */
const write = (id = 'SN-1/B1'): Answered<{ record: StoredRecord; inserted: boolean }> => {
  const handler: Answered<{ record: StoredRecord; inserted: boolean }> = async (ctx) => {
    handler.answered = await signatures.insertIfAbsent(
      ctx.state.signature!,
      id,
      id,
      ({ terminal, account }: { terminal: TerminalRecord; account: Account }) => ({
        merchantId: terminal.merchantId,
        offset: account.clock_offset_ms,
      }),
    );
  };
  return handler;
};

const refusal = (code: string) => ({ code });

t.test(
  "a terminal known here: its claim is made with the handler's write, one step, nothing read before",
  async (t) => {
    const { calls, records, request } = worldOf();
    await request(async () => undefined);
    t.same(
      [calls.getLinked, calls.claimAndRead],
      [1, 1],
      'first met: read, then claimed (and read) on its own, as other operations are',
    );
    const handler = write();
    const { ctx } = await request(handler);
    t.equal(calls.getLinked, 1, 'known: not read again');
    t.equal(calls.claimAndRead, 1, 'no claim of its own');
    t.equal(calls.claimAndWrite.length, 1);
    t.match(calls.claimAndWrite[0], {
      claim: { serial: SERIAL, signedAt: NOW + 2, expiresAt: NOW + 2 + 300_000, now: NOW },
      basis: { terminal: { secret: 'a'.repeat(64) }, account: { clock_offset_ms: 0 } },
      write: { kind: 'insert', collection: 'SN-1/B1', id: 'SN-1/B1', value: { merchantId: 'M1', offset: 0 } },
    });
    t.match(calls.claimAndWrite[0]!.claim.key, /^SN-1:[0-9a-f]{64}$/, 'the claim is the serial and the signature');
    t.same(handler.answered, { record: { merchantId: 'M1', offset: 0 }, inserted: true });
    t.same(records.get('SN-1/B1'), { merchantId: 'M1', offset: 0 });
    t.equal(ctx.state.signature?.terminal.serialNumber, SERIAL, 'the handler has the terminal');
    t.equal(ctx.state.signature?.account.account_id, 'A1', 'and its account');
  },
);

t.test('a terminal first met is read, then claimed with the write', async (t) => {
  const { calls, request } = worldOf();
  await request(write());
  t.same([calls.getLinked, calls.claimAndRead, calls.claimAndWrite.length], [1, 0, 1]);
});

t.test('the record already there is answered, not written again', async (t) => {
  const { calls, request } = worldOf();
  await request(write());
  const second = write();
  await request(second);
  t.same(second.answered, { record: { merchantId: 'M1', offset: 0 }, inserted: false });
  t.equal(calls.insertIfAbsent.length, 0, 'never written on its own');
});

t.test('a replayed signature is refused by the step with the write', async (t) => {
  const { request } = worldOf();
  const { headers } = await request(write());
  await t.rejects(request(write(), { headers }), refusal('SIGNATURE_REPLAYED'));
});

t.test('a handler that writes nothing with it: claimed on its own, after the handler', async (t) => {
  const { calls, request } = worldOf();
  let claimsDuring = -1;
  await request(async (ctx: AppContext) => {
    claimsDuring = calls.claimAndRead;
    t.equal(ctx.state.signature?.claimAttempted, false, 'the handler holds it unclaimed');
  });
  t.equal(claimsDuring, 0);
  await request(async () => undefined);
  t.same(
    [calls.getLinked, calls.claimAndRead, calls.claimAndWrite.length],
    [1, 2, 0],
    'the second time from what is known, still claimed on its own',
  );
});

t.test("refused before its write: the handler's own error is the answer, and the claim is still made", async (t) => {
  const { calls, request } = worldOf();
  await request(async () => undefined); // known from here
  const bad = new Error('a bad body');
  const failing: Middleware<AppState> = async () => {
    throw bad;
  };
  await t.rejects(request(failing), bad, "the handler's refusal");
  t.equal(calls.claimAndRead, 2, 'claimed on its own all the same');
  // The same request again: its signature was claimed, so it can never succeed; its answer is still the handler's.
  const headers = signPosRequest({
    secret: 'a'.repeat(64),
    method: 'POST',
    url: URL,
    body: '{"batchNumber":"B1"}',
    now: NOW + 100,
  });
  await request(async () => undefined, { headers });
  await t.rejects(request(failing, { headers }), bad, "a replay that fails before writing answers the handler's error");
  await t.rejects(request(write(), { headers }), refusal('SIGNATURE_REPLAYED'), 'and one that writes is refused');
});

t.test('a handler that ends without writing: the claim is made after it, and can still refuse', async (t) => {
  const { calls, request } = worldOf();
  await request(async () => undefined);
  await request(async () => undefined);
  t.equal(calls.claimAndRead, 2);
  const headers = signPosRequest({
    secret: 'a'.repeat(64),
    method: 'POST',
    url: URL,
    body: '{"batchNumber":"B1"}',
    now: NOW + 100,
  });
  await request(async () => undefined, { headers });
  await t.rejects(
    request(async () => undefined, { headers }),
    refusal('SIGNATURE_REPLAYED'),
  );
});

t.test('a write that fails is not claimed again: its failure is the answer', async (t) => {
  const { now, calls, request } = worldOf();
  await request(async () => undefined);
  now.away = new Error('database away');
  await t.rejects(request(write()), now.away);
  t.equal(calls.claimAndRead, 1, 'no claim after it: whether the step was made is not known');
});

t.test('a handler that fails before reaching the store: the claim is made on its own', async (t) => {
  const { calls, request } = worldOf();
  await request(async () => undefined);
  const broken = new Error('no record to build');
  const failingBuild: Middleware<AppState> = async () => {
    throw broken; // as a record that cannot be built, before any write
  };
  await t.rejects(request(failingBuild), broken);
  t.equal(calls.claimAndRead, 2);
  t.equal(calls.claimAndWrite.length, 0);
});

t.test('a signature is claimed once per request: only the first write carries it', async (t) => {
  const { calls, request } = worldOf();
  const twice: Middleware<AppState> = async (ctx) => {
    const signature = ctx.state.signature!;
    await signatures.insertIfAbsent(signature, 'c', 'a', () => ({}));
    await signatures.insertIfAbsent(signature, 'c', 'b', () => ({}));
    await signatures.replaceIf(signature, 'c', 'a', {}, () => ({ later: true }));
  };
  await request(twice);
  t.equal(calls.claimAndWrite.length, 1);
  t.same(
    [calls.insertIfAbsent.length, calls.replaceIf, calls.claimAndRead],
    [1, 1, 0],
    'the later writes go to the store as they are; no claim after',
  );
});

t.test(
  "the account's clock moved meanwhile: claimed, then the record built again and written on its own",
  async (t) => {
    const { now, calls, records, request } = worldOf();
    await request(write('SN-1/B0'));
    now.account = accountOf(3_600_000);
    const handler = write();
    await request(handler);
    t.same(
      calls.insertIfAbsent,
      [{ merchantId: 'M1', offset: 3_600_000 }],
      'the record built from the account as it is now',
    );
    t.same(handler.answered, { record: { merchantId: 'M1', offset: 3_600_000 }, inserted: true });
    t.same(records.get('SN-1/B1'), { merchantId: 'M1', offset: 3_600_000 });
    await request(write('SN-1/B2'));
    t.equal(calls.claimAndWrite.at(-1)!.basis.account.clock_offset_ms, 3_600_000, 'and known so from then on');
    t.equal(calls.insertIfAbsent.length, 1);
  },
);

t.test('changed meanwhile and the record already there: answered as it is', async (t) => {
  const { now, request } = worldOf();
  await request(write());
  now.terminal = terminalOf('a'.repeat(64), { label: 'renamed' } as Partial<TerminalRecord>);
  const handler = write();
  await request(handler);
  t.same(handler.answered, { record: { merchantId: 'M1', offset: 0 }, inserted: false });
});

t.test(
  'a secret rotated elsewhere: the old one is refused by the step with the write, and forgotten here',
  async (t) => {
    const { now, calls, records, request } = worldOf();
    await request(write('SN-1/B0'));
    const old = now.terminal!.secret;
    now.terminal = terminalOf('b'.repeat(64));
    await t.rejects(request(write(), { secret: old }), refusal('SIGNATURE_INVALID'));
    t.equal(records.has('SN-1/B1'), false, 'nothing written');
    t.equal(calls.insertIfAbsent.length, 0);
    await request(write('SN-1/B2'));
    t.equal(calls.getLinked, 2, 'the new secret: read again, as nothing is known');
  },
);

t.test(
  'a secret rotated elsewhere: a request signed with the new one is read at once, and written in one step',
  async (t) => {
    const { now, calls, request } = worldOf();
    await request(write('SN-1/B0'));
    now.terminal = terminalOf('b'.repeat(64));
    await request(write());
    t.equal(calls.getLinked, 2, 'what is known here does not sign it: read again before the claim');
    t.equal(calls.insertIfAbsent.length, 0, 'so the step with the write expects the terminal as it is now');
    t.same(calls.claimAndWrite.at(-1)!.basis.terminal, now.terminal);
  },
);

t.test('changed meanwhile and replayed: refused as a replay', async (t) => {
  const { now, request } = worldOf();
  const { headers } = await request(write('SN-1/B0'));
  now.account = accountOf(5);
  await t.rejects(request(write(), { headers }), refusal('SIGNATURE_REPLAYED'));
});

t.test('a terminal whose account is gone signs nothing, by either step', async (t) => {
  const { now, calls, records, request } = worldOf();
  await request(write('SN-1/B0'));
  now.account = undefined;
  await t.rejects(request(write()), refusal('SIGNATURE_INVALID'));
  t.equal(records.has('SN-1/B1'), false);
  await t.rejects(
    request(write()),
    refusal('SIGNATURE_INVALID'),
    'read again: no account, so claimed on its own and refused',
  );
  t.equal(calls.claimAndRead, 1);
});

t.test('a terminal deleted elsewhere signs nothing', async (t) => {
  const { now, request } = worldOf();
  await request(write('SN-1/B0'));
  const { secret } = now.terminal!;
  now.terminal = undefined;
  await t.rejects(request(write(), { secret }), refusal('SIGNATURE_INVALID'));
  await t.rejects(request(write(), { secret }), refusal('SIGNATURE_INVALID'));
});

t.test('a secret rotated elsewhere stops the old one on an operation claimed on its own', async (t) => {
  const { now, calls, request } = worldOf();
  await request(async () => undefined);
  const old = now.terminal!.secret;
  now.terminal = terminalOf('b'.repeat(64));
  await t.rejects(
    request(async () => undefined, { secret: old }),
    refusal('SIGNATURE_INVALID'),
  );
  await request(async () => undefined);
  t.equal(calls.getLinked, 2, 'forgotten, so read again for the new one');
});

/** A transition's handler: replaces `id` if it is still `expected`; a write that finds the account changed says so with the account as it is now. */
const replace = (
  expected: StoredRecord,
  next: StoredRecord,
  id = 'O1',
): Answered<{ replaced: boolean; account?: Account }> => {
  const handler: Answered<{ replaced: boolean; account?: Account }> = async (ctx) => {
    let builtFor: Account | undefined;
    const replaced = await signatures.replaceIf(ctx.state.signature!, 'orders', id, expected, ({ account }) => {
      builtFor = account;
      return next;
    });
    handler.answered = { replaced, ...(builtFor?.clock_offset_ms ? { account: builtFor } : {}) };
  };
  return handler;
};

t.test('a replacement is made with the claim in one step, only if the record is still as read', async (t) => {
  const { calls, records, request } = worldOf();
  records.set('O1', { status: 'PENDING' });
  const first = replace({ status: 'PENDING' }, { status: 'PAID' });
  await request(first);
  t.same(first.answered, { replaced: true });
  t.same(records.get('O1'), { status: 'PAID' });
  t.match(calls.claimAndWrite[0]!.write, {
    kind: 'replace',
    collection: 'orders',
    id: 'O1',
    expected: { status: 'PENDING' },
    value: { status: 'PAID' },
  });
  const late = replace({ status: 'PENDING' }, { status: 'DISCARDED' });
  await request(late);
  t.same(
    late.answered,
    { replaced: false },
    'changed meanwhile: not replaced, the claim made; the caller decides again',
  );
  t.same(records.get('O1'), { status: 'PAID' });
  t.equal(calls.claimAndRead, 0, 'no claim of its own either time');
});

t.test(
  "the account's clock moved: claimed, then the replacement built again from the account as it is now, on its own",
  async (t) => {
    const { now, calls, records, request } = worldOf();
    records.set('O1', { status: 'PENDING' });
    await request(write('SN-1/B0'));
    now.account = accountOf(60_000);
    const moved = replace({ status: 'PENDING' }, { status: 'PAID' });
    const { headers } = await request(moved);
    t.same(moved.answered, { replaced: true, account: now.account });
    t.same(records.get('O1'), { status: 'PAID' });
    t.equal(calls.replaceIf, 1, 'the second try on its own: the claim was made by the first');
    await t.rejects(
      request(replace({ status: 'PENDING' }, { status: 'PAID' }), { headers }),
      refusal('SIGNATURE_REPLAYED'),
      'its signature was claimed',
    );
  },
);

t.test('a replayed signature is refused by the step with the replacement', async (t) => {
  const { records, request } = worldOf();
  records.set('O1', { status: 'PENDING' });
  const { headers } = await request(replace({ status: 'PENDING' }, { status: 'PAID' }));
  await t.rejects(
    request(replace({ status: 'PAID' }, { status: 'VOIDED' }), { headers }),
    refusal('SIGNATURE_REPLAYED'),
  );
  t.same(records.get('O1'), { status: 'PAID' });
});

t.test('what is known here is bounded: the least recently used terminal is forgotten first', async (t) => {
  const { calls, request } = worldOf();
  const read = async (serial: string) => {
    const before = calls.getLinked;
    await request(async () => undefined, { serial });
    return calls.getLinked - before;
  };
  for (let i = 0; i < 10_000; i += 1) await read(`S${i}`);
  t.equal(calls.getLinked, 10_000, 'each read once');
  t.equal(await read('S0'), 0, '10,000 are kept');
  t.equal(await read('S10000'), 1, 'one more, read');
  t.equal(await read('S0'), 0, 'the first, used again since, is still known');
  t.equal(await read('S1'), 1, 'the least recently used was forgotten');
});

import { EVENT_TYPES, eventBody, newSession, signed, timestampAt, type Delivery } from './deliveries.js';
import type { Answer } from './transport.js';

// The receiver rules, as checks (spec: Events, Signature rule 4 and
// Delivery and retries; addendum §7). Each check names its source, says
// what it sends and what it expects, and is graded on the answers alone.
// A receiver with one common mistake fails the check of that mistake and
// no other: timing is judged only by the latency checks (the others wait
// longer than 5 s for an answer), and the raw-bytes check is not graded
// for a receiver that checks no signature at all.

export type Expectation = '2xx' | 'non-2xx';

export interface Probe {
  name: string;
  delivery: Delivery;
  expect: Expectation;
  answer: Answer;
  passed: boolean;
}

export interface CheckContext {
  secret: string;
  now(): number;
  /** Sends one delivery and grades its answer. */
  probe(name: string, delivery: Delivery, expect: Expectation): Promise<Probe>;
  /** The answer time a receiver must stay within (the spec's 5 s). */
  maxLatencyMs: number;
}

export interface CheckRun {
  probes: Probe[];
  /** Decides the check when answers alone do not (latency). */
  passed?: boolean;
  note?: string;
}

export interface Check {
  id: string;
  title: string;
  source: string;
  /** A failed required check fails the run; the others are advice. */
  required: boolean;
  /** Not graded when this check failed: its mistake would hide this one's. */
  dependsOn?: string;
  /** Checks of a phase run together; latency and concurrency run alone, so nothing else skews them. */
  phase: 1 | 2 | 3;
  run(ctx: CheckContext): Promise<CheckRun>;
}

const RULES = 'spec Events, Signature rule 4';
const all = (probes: Array<Promise<Probe>>) => Promise.all(probes).then((done) => ({ probes: done }));

const signedEventChecks: Check[] = EVENT_TYPES.map((type) => ({
  id: `signed-${type.replace('payment_session.', '').replace(/_/g, '-')}`,
  title: `a correctly signed ${type} is acknowledged with a 2xx`,
  source: `${RULES}; addendum §7 (body)`,
  required: true,
  phase: 1,
  run: async (ctx) => {
    const at = timestampAt(ctx.now());
    return all([ctx.probe(type, signed(ctx.secret, at, eventBody(type, at)), '2xx')]);
  },
}));

export const CHECKS: Check[] = [
  ...signedEventChecks,
  {
    id: 'retry-acknowledged',
    title: 'an automatic retry (the same bytes, signature and idempotency-key) is acknowledged again, not refused as a duplicate',
    source: `${RULES} (deduplicate by idempotency-key); spec Events, Delivery and retries`,
    required: true,
    phase: 1,
    run: async (ctx) => {
      const at = timestampAt(ctx.now());
      const delivery = signed(ctx.secret, at, eventBody('payment_session.paid', at));
      const first = await ctx.probe('first delivery', delivery, '2xx');
      const retry = await ctx.probe('the same delivery again', delivery, '2xx');
      return { probes: [first, retry] };
    },
  },
  {
    id: 'rejects-bad-signature',
    title: 'a delivery whose signature does not match is refused',
    source: `${RULES} (reject a mismatched signature, 401); spec Events, Signature rule 1–3`,
    required: true,
    phase: 1,
    run: async (ctx) => {
      const at = timestampAt(ctx.now());
      const good = signed(ctx.secret, at, eventBody('payment_session.paid', at));
      const { 'svc-signature': _signature, ...withoutSignature } = good.headers;
      const { 'svc-timestamp': _timestamp, ...withoutTimestamp } = good.headers;
      const fieldAdded = JSON.stringify({ ...(JSON.parse(good.body) as object), refund: true });
      return all([
        ctx.probe('one byte of the body changed', { ...good, body: good.body.replace('120.5', '920.5') }, 'non-2xx'),
        ctx.probe('a field added to the body', { ...good, body: fieldAdded }, 'non-2xx'),
        ctx.probe('signed with another secret', signed(`${ctx.secret}x`, at, good.body), 'non-2xx'),
        ctx.probe('no svc-signature header', { ...good, headers: withoutSignature }, 'non-2xx'),
        ctx.probe('no svc-timestamp header', { ...good, headers: withoutTimestamp }, 'non-2xx'),
      ]);
    },
  },
  {
    id: 'signature-over-raw-bytes',
    title: 'the signature is checked over the body exactly as received, not over re-serialised JSON',
    source: `spec Events, Signature rule 1 and 3 (re-serialising the JSON makes the signature mismatch)`,
    required: true,
    dependsOn: 'rejects-bad-signature',
    phase: 1,
    run: async (ctx) => {
      const at = timestampAt(ctx.now());
      const body = eventBody('payment_session.paid', at);
      const good = signed(ctx.secret, at, body);
      // The same JSON with other spacing: bytes a signature over re-serialised JSON cannot tell from the signed ones.
      const respaced = JSON.stringify(body, null, 1);
      // Signed as sent, but not as JSON.stringify would write it.
      const spacedSigned = signed(ctx.secret, at, respaced);
      return all([
        ctx.probe('the signed body re-sent with other spacing, under its original signature', { ...good, body: respaced }, 'non-2xx'),
        ctx.probe('a correctly signed body whose bytes are not JSON.stringify\'s', spacedSigned, '2xx'),
      ]);
    },
  },
  {
    id: 'timestamp-tolerance',
    title: 'a timestamp more than 5 minutes away is refused; one just inside is accepted',
    source: `${RULES} (reject a stale timestamp to prevent replay; the worked example's 5-minute limit)`,
    required: true,
    phase: 1,
    run: async (ctx) => {
      const send = (name: string, offsetMs: number, expect: Expectation) => {
        const at = timestampAt(ctx.now(), offsetMs);
        return ctx.probe(name, signed(ctx.secret, at, eventBody('payment_session.paid', at)), expect);
      };
      return all([
        send('signed 5 min 1 s ago', -301_000, 'non-2xx'),
        send('signed 5 min 1 s ahead', 301_000, 'non-2xx'),
        send('signed 4 min 59 s ago', -299_000, '2xx'),
      ]);
    },
  },
  {
    id: 'forward-compatible',
    title: 'an unknown event type and unknown fields are acknowledged (new events and fields come without notice)',
    source: 'spec Events (event catalogue: the body schema beyond the fields named is not shown); addendum §7',
    required: true,
    phase: 1,
    run: async (ctx) => {
      const at = timestampAt(ctx.now());
      const unknownType = eventBody('payment_session.something_new', at);
      const extraFields = eventBody('payment_session.paid', at, newSession(), { api_version: '2027-01' });
      (extraFields.data as Record<string, unknown>).loyalty_points = 12;
      return all([
        ctx.probe('event payment_session.something_new', signed(ctx.secret, at, unknownType), '2xx'),
        ctx.probe('a known event with fields it did not have', signed(ctx.secret, at, extraFields), '2xx'),
      ]);
    },
  },
  {
    id: 'sessions-interleaved',
    title: 'events of two sessions arriving interleaved are each acknowledged on their own',
    source: 'spec Events, Signature rule 5 (order within a session, none across sessions)',
    required: true,
    phase: 1,
    run: async (ctx) => {
      const [first, second] = [newSession(), newSession()];
      const order: Array<[string, string, ReturnType<typeof newSession>]> = [
        ['session 1 created', 'payment_session.created', first],
        ['session 2 created', 'payment_session.created', second],
        ['session 2 paid', 'payment_session.paid', second],
        ['session 1 paid', 'payment_session.paid', first],
        ['session 1 accredited', 'payment_session.accredited', first],
        ['session 2 accredited', 'payment_session.accredited', second],
      ];
      // Sent in this order, each without waiting for the answer before: they arrive interleaved, and overlap.
      return all(order.map(([name, type, session]) => {
        const at = timestampAt(ctx.now());
        return ctx.probe(name, signed(ctx.secret, at, eventBody(type, at, session)), '2xx');
      }));
    },
  },
  latencyCheck('latency', 'answers within 5 s at the 99th percentile of 50 deliveries (slower answers are failed attempts, retried)', true, (ctx) => ctx.maxLatencyMs),
  latencyCheck('latency-ideal', 'answers within 2 s at the 99th percentile (the spec\'s ideal; advice)', false, () => 2000),
  {
    id: 'concurrency',
    title: '20 deliveries at once are all acknowledged',
    source: 'spec Events, Delivery and retries (the simulator attempts deliveries of different sessions concurrently)',
    required: true,
    phase: 3,
    run: async (ctx) => {
      const at = timestampAt(ctx.now());
      return all(Array.from({ length: 20 }, (_, i) => ctx.probe(`delivery ${i + 1} of 20`, signed(ctx.secret, at, eventBody('payment_session.paid', at)), '2xx')));
    },
  },
];

/**
 * p50 and p99 over up to 50 deliveries sent one after another. With 50
 * samples the 99th percentile is the slowest, so the first answer over the
 * limit decides and sampling stops there.
 */
function latencyCheck(id: string, title: string, required: boolean, limitMs: (ctx: CheckContext) => number): Check {
  return {
    id,
    title,
    source: `${RULES} (answer 2xx within 5 seconds, ideally under 2); spec Events, Delivery and retries (no answer within 5 s is a failure)`,
    required,
    phase: 2,
    run: async (ctx) => {
      const limit = limitMs(ctx);
      const probes: Probe[] = [];
      for (let i = 0; i < 50; i += 1) {
        const at = timestampAt(ctx.now());
        const probe = await ctx.probe(`delivery ${i + 1} of 50`, signed(ctx.secret, at, eventBody('payment_session.paid', at)), '2xx');
        probes.push(probe);
        if (probe.answer.ms > limit || probe.answer.status === null) break;
      }
      const times = probes.map((probe) => probe.answer.ms).sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!;
      const unanswered = probes.filter((probe) => probe.answer.status === null).length;
      const passed = probes.length === 50 && at(99) <= limit && unanswered === 0;
      const note = `p50 ${Math.round(at(50))} ms, p99 ${Math.round(at(99))} ms over ${probes.length} deliveries (limit ${limit} ms)${probes.length < 50 ? '; stopped at the first over the limit' : ''}`;
      // Only the time is graded here: a refused delivery fails its own check, not this one.
      return { probes: probes.map((probe) => ({ ...probe, passed: probe.answer.status !== null && probe.answer.ms <= limit })), passed, note };
    },
  };
}

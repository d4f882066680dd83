import { EVENT_TYPES, event, newSession, type GradingDelivery, type DeliveryRecipe } from './deliveries.js';
import type { ReceiverAnswer } from './transport.js';

// The receiver rules, as checks (INTERFACE.md §7). Each check names its source, says
// what it sends and what it expects, and is graded on the answers alone.
// A receiver with one common mistake fails the check of that mistake and
// no other: checks run one after another, and so do the deliveries of a
// check, but where concurrency is what is checked (20 at once, two
// sessions interleaved), so a receiver that copes badly with load fails
// only the check that loads it; timing is judged by the latency checks and
// by the simulator's 5 s attempt limit wherever deliveries overlap; the
// raw-bytes check is not graded for a receiver that checks no signature.
// Not graded: deduplication. Whether a receiver processes a retry twice
// cannot be seen from its answers (the interface asks it to acknowledge the
// retry either way); retry-acknowledged only checks the retry is not refused.

export type ReceiverExpectation = '2xx' | 'non-2xx';

export interface Probe {
  name: string;
  /** How it was made, so that a curl line can make it again. */
  recipe: DeliveryRecipe;
  delivery: GradingDelivery;
  expect: ReceiverExpectation;
  answer: ReceiverAnswer;
  /** The answer time it had to stay within, when time is graded (the simulator's attempt limit). */
  withinMs?: number;
  /** When time is graded: what a reference receiver took at the same moment (host-share.ts), not counted against it. */
  hostMs?: number;
  passed: boolean;
}

export interface ProbeOptions {
  /** Grade the answer's time too: slower is a failed attempt for the simulator. */
  withinMs?: number;
}

export interface ReceiverCheckContext {
  secret: string;
  now(): number;
  /** Signs one delivery at the moment it is sent, sends it and grades its answer. */
  probe(name: string, recipe: DeliveryRecipe, expect: ReceiverExpectation, options?: ProbeOptions): Promise<Probe>;
  /** Sends an earlier probe's delivery again, byte for byte (an automatic retry). */
  resend(name: string, previous: Probe, expect: ReceiverExpectation): Promise<Probe>;
  /** The answer time a receiver must stay within (the interface's 5 s). */
  maxLatencyMs: number;
}

export interface CheckRun {
  probes: Probe[];
  /** Decides the check when answers alone do not (latency). */
  passed?: boolean;
  note?: string;
}

export interface ReceiverCheck {
  id: string;
  title: string;
  source: string;
  /** A failed required check fails the run; the others are advice. */
  required: boolean;
  /** Not graded when this check failed: its mistake would hide this one's. */
  dependsOn?: string;
  /** Functional checks (1) come first, then latency (2), then concurrency (3); every check runs alone. */
  phase: 1 | 2 | 3;
  run(ctx: ReceiverCheckContext): Promise<CheckRun>;
}

const RULES = 'INTERFACE.md §7';

/** Probes one after another: each is sent once the one before has its answer. */
async function inTurn(...sends: Array<() => Promise<Probe>>): Promise<CheckRun> {
  const probes: Probe[] = [];
  for (const send of sends) probes.push(await send());
  return { probes };
}

const signedEventChecks: ReceiverCheck[] = EVENT_TYPES.map((type) => ({
  id: `signed-${type.replace('payment_session.', '').replace(/_/g, '-')}`,
  title: `a correctly signed ${type} is acknowledged with a 2xx`,
  source: `${RULES} (body)`,
  required: true,
  phase: 1,
  run: (ctx) => inTurn(() => ctx.probe(type, event(type), '2xx')),
}));

/** How far past the 5-minute limit the timestamp probes are signed, either way: more than a slow accept (a TCP retry) can move them. */
export const TOLERANCE_MARGIN_MS = 10_000;
const FIVE_MINUTES_MS = 300_000;

export const CHECKS: ReceiverCheck[] = [
  ...signedEventChecks,
  {
    id: 'retry-acknowledged',
    title:
      'an automatic retry (the same bytes, signature and idempotency-key) is acknowledged again, not refused as a duplicate',
    source: `${RULES} (deduplicate by idempotency-key); INTERFACE.md §7`,
    required: true,
    phase: 1,
    run: async (ctx) => {
      const first = await ctx.probe('first delivery', event('payment_session.paid'), '2xx');
      const retry = await ctx.resend('the same delivery again', first, '2xx');
      return { probes: [first, retry] };
    },
  },
  {
    id: 'rejects-bad-signature',
    title: 'a delivery whose signature does not match is refused',
    source: `${RULES} (reject a mismatched signature, 401); INTERFACE.md §7`,
    required: true,
    phase: 1,
    run: (ctx) => {
      const paid = () => event('payment_session.paid');
      // Signed over the body as built; sent changed.
      return inTurn(
        () =>
          ctx.probe(
            'one byte of the body changed',
            { ...paid(), alter: (signed) => signed.replace('120.5', '920.5') },
            'non-2xx',
          ),
        () =>
          ctx.probe(
            'a field added to the body',
            { ...paid(), alter: (signed) => `${signed.slice(0, -1)},"refund":true}` },
            'non-2xx',
          ),
        () => ctx.probe('signed with another secret', { ...paid(), secretSuffix: 'x' }, 'non-2xx'),
        () => ctx.probe('no svc-signature header', { ...paid(), omit: ['svc-signature'] }, 'non-2xx'),
        () => ctx.probe('no svc-timestamp header', { ...paid(), omit: ['svc-timestamp'] }, 'non-2xx'),
      );
    },
  },
  {
    id: 'signature-over-raw-bytes',
    title: 'the signature is checked over the body exactly as received, not over re-serialised JSON',
    source: `INTERFACE.md §7`,
    required: true,
    dependsOn: 'rejects-bad-signature',
    phase: 1,
    run: (ctx) => {
      const spaced = (body: Record<string, unknown>) => JSON.stringify(body, null, 1);
      // The same JSON with other spacing, under the signature of the compact bytes: a signature over re-serialised JSON cannot tell them apart.
      const respaced: DeliveryRecipe = {
        ...event('payment_session.paid'),
        alter: (signed) => spaced(JSON.parse(signed) as Record<string, unknown>),
      };
      // Signed as sent, but not as JSON.stringify would write it.
      const spacedSigned = event('payment_session.paid', newSession(), {}, spaced);
      return inTurn(
        () =>
          ctx.probe('the signed body re-sent with other spacing, under its original signature', respaced, 'non-2xx'),
        () => ctx.probe("a correctly signed body whose bytes are not JSON.stringify's", spacedSigned, '2xx'),
      );
    },
  },
  {
    id: 'timestamp-tolerance',
    title:
      'a timestamp more than 5 minutes away is refused; one inside is accepted (probed 10 s either side of the limit, signed as sent)',
    source: `${RULES} (reject a stale timestamp to prevent replay; the worked example's 5-minute limit)`,
    required: true,
    phase: 1,
    run: (ctx) => {
      const send = (name: string, offsetMs: number, expect: ReceiverExpectation) => () =>
        ctx.probe(name, { ...event('payment_session.paid'), offsetMs }, expect);
      return inTurn(
        send('signed 5 min 10 s ago', -(FIVE_MINUTES_MS + TOLERANCE_MARGIN_MS), 'non-2xx'),
        send('signed 5 min 10 s ahead', FIVE_MINUTES_MS + TOLERANCE_MARGIN_MS, 'non-2xx'),
        send('signed 4 min 50 s ago', -(FIVE_MINUTES_MS - TOLERANCE_MARGIN_MS), '2xx'),
      );
    },
  },
  {
    id: 'forward-compatible',
    title: 'an unknown event type and unknown fields are acknowledged (new events and fields come without notice)',
    source: 'INTERFACE.md §7',
    required: true,
    phase: 1,
    run: (ctx) => {
      const withLoyalty = (body: Record<string, unknown>) =>
        JSON.stringify({ ...body, data: { ...(body.data as object), loyalty_points: 12 } });
      return inTurn(
        () => ctx.probe('event payment_session.something_new', event('payment_session.something_new'), '2xx'),
        () =>
          ctx.probe(
            'a known event with fields it did not have',
            event('payment_session.paid', newSession(), { api_version: '2027-01' }, withLoyalty),
            '2xx',
          ),
      );
    },
  },
  {
    id: 'sessions-interleaved',
    title: 'events of two sessions arriving interleaved are each acknowledged on their own, within 5 s',
    source: 'INTERFACE.md §7 (a later event of a session waits for the earlier)',
    required: true,
    phase: 3,
    run: async (ctx) => {
      // Each session's events in order, as the simulator sends them (the next once the one before is answered);
      // the two sessions at the same time, so their events interleave and overlap.
      const types = ['payment_session.created', 'payment_session.paid', 'payment_session.accredited'];
      const chain = async (label: string) => {
        const session = newSession();
        const probes: Probe[] = [];
        for (const type of types)
          probes.push(
            await ctx.probe(`${label} ${type.replace('payment_session.', '')}`, event(type, session), '2xx', {
              withinMs: ctx.maxLatencyMs,
            }),
          );
        return probes;
      };
      const [first, second] = await Promise.all([chain('session 1'), chain('session 2')]);
      return { probes: first!.flatMap((probe, i) => [probe, second![i]!]) };
    },
  },
  latencyCheck(
    'latency',
    'answers within 5 s at the 99th percentile of 50 deliveries (slower answers are failed attempts, retried)',
    true,
    (ctx) => ctx.maxLatencyMs,
  ),
  latencyCheck(
    'latency-ideal',
    "answers within 2 s at the 99th percentile (the interface's ideal; advice)",
    false,
    () => 2000,
  ),
  {
    id: 'concurrency',
    title:
      "20 deliveries at once are all acknowledged, each within 5 s of its own (the simulator's attempt limit; what a reference receiver took at the same moment on this host is the host's, not the receiver's)",
    source: 'INTERFACE.md §7',
    required: true,
    phase: 3,
    run: async (ctx) => ({
      probes: await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          ctx.probe(`delivery ${i + 1} of 20`, event('payment_session.paid'), '2xx', { withinMs: ctx.maxLatencyMs }),
        ),
      ),
    }),
  },
];

/**
 * p50 and p99 over up to 50 deliveries sent one after another. With 50
 * samples the 99th percentile is the slowest, so the first answer over the
 * limit decides and sampling stops there.
 */
function latencyCheck(
  id: string,
  title: string,
  required: boolean,
  limitMs: (ctx: ReceiverCheckContext) => number,
): ReceiverCheck {
  return {
    id,
    title,
    source: `${RULES} (answer 2xx within 5 seconds, ideally under 2); INTERFACE.md §7`,
    required,
    phase: 2,
    run: async (ctx) => {
      const limit = limitMs(ctx);
      const probes: Probe[] = [];
      for (let i = 0; i < 50; i += 1) {
        const probe = await ctx.probe(`delivery ${i + 1} of 50`, event('payment_session.paid'), '2xx');
        probes.push(probe);
        if (probe.answer.ms > limit || probe.answer.status === null) break;
      }
      const times = probes.map((probe) => probe.answer.ms).sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.ceil((p / 100) * times.length) - 1)]!;
      const unanswered = probes.filter((probe) => probe.answer.status === null).length;
      const passed = probes.length === 50 && at(99) <= limit && unanswered === 0;
      const note = `p50 ${Math.round(at(50))} ms, p99 ${Math.round(at(99))} ms over ${probes.length} deliveries (limit ${limit} ms)${probes.length < 50 ? '; stopped at the first over the limit' : ''}`;
      // Only the time is graded here: a refused delivery fails its own check, not this one.
      return {
        probes: probes.map((probe) => ({
          ...probe,
          withinMs: limit,
          passed: probe.answer.status !== null && probe.answer.ms <= limit,
        })),
        passed,
        note,
      };
    },
  };
}

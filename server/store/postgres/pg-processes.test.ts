import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { contractClient, type ContractClient } from '../../../contracts/testing/contract-client.js';
import { startRelayClient } from '../../../contracts/clients/relay-client.js';
import { checkInvariants, type OrderRun } from '../../../scripts/race/race.js';
import { bundledRaceFiles, loadRaceScenarios, playRace } from '../../../scripts/race/race-scenarios.js';
import { startSplitProxy } from '../../../contracts/testing/split-proxy.js';
import { PosClient } from '../../../contracts/clients/pos-client.js';
import { waitFor } from '../../testing/wait-for.js';
import { startServerProcess, stopped, stopServerProcess, type ServerProcess } from '../../testing/server-process.js';
import { postgresSkip, startPostgres } from './pg-testing.js';

// Three server processes (`server/main.ts`, as `npm start` runs it) on one
// PostgreSQL database: what each acknowledges, every other sees; work that
// any of them may pick up (webhook attempts) is done once.

interface Instance extends ServerProcess {
  api: ContractClient;
}

async function threeProcesses(
  t: Test,
  env: Record<string, string> = {},
): Promise<{ instances: Instance[]; databaseUrl: string }> {
  const databaseUrl = startPostgres(t);
  // Started together: the schema migrations run once among them.
  const started = await Promise.all(
    [0, 1, 2].map(() => startServerProcess({ DATABASE_URL: databaseUrl, DATA_DIR: t.testdir(), ...env })),
  );
  t.teardown(async () => {
    await Promise.all(started.map(stopServerProcess));
    for (const server of started) if (/"level":"error"/.test(server.stderr())) t.comment(server.stderr());
  });
  return { instances: started.map((server) => ({ ...server, api: contractClient(server.baseUrl) })), databaseUrl };
}

async function merchant(api: ContractClient, email: string) {
  const account = (await api.post('/console/register', { json: { email, password: '12345678' } })).body;
  const terminal = (
    await api.post(`/api/v1/merchants/${account.merchant_id}/pos-terminals`, {
      json: { serialNumber: `THREE-${email.length}` },
      token: account.key.token,
    })
  ).body;
  return { account, terminal };
}

/** A local webhook receiver that counts every request it gets (no deduplication: duplicates must show). */
async function countingReceiver(t: Test) {
  const received: Array<{ key: string; event: string; event_id: string; session_id: string }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req
      .on('data', (chunk: Buffer) => chunks.push(chunk))
      .on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        received.push({
          key: String(req.headers['idempotency-key']),
          event: body.event,
          event_id: body.event_id,
          session_id: body.data.session_id,
        });
        res.writeHead(200).end();
      });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => server.close(resolve)));
  return { received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` };
}

/**
 * An account on the first process with a relay connected there only, forwarding to a
 * counting receiver, and an agreement to create sessions on.
 */
async function relayedAccount(t: Test, first: Instance, email: string) {
  const { account, terminal } = await merchant(first.api, email);
  const token = account.key.token;
  const receiver = await countingReceiver(t);
  const relay = startRelayClient({ baseUrl: first.baseUrl, token, forwardTo: receiver.url, log: () => undefined });
  t.teardown(() => relay.stop());
  await relay.connected;
  const agreement = (
    await first.api.post('/api/v1/ext/agreements', {
      json: { name: 'Shop', currency_reference: 'USD', split: false, payment_methods: ['transfer'] },
      token,
    })
  ).body;
  return { account, terminal, token, receiver, agreement };
}

/** Whether `done` comes to hold within `ms` of real time (webhook delivery runs on real timers in these processes). */
const until = (done: () => boolean, ms: number): Promise<boolean> =>
  waitFor(done, ms, 'the processes').then(
    () => true,
    () => false,
  );

t.test(
  'the discard/commit race across three server processes keeps every invariant',
  { skip: postgresSkip() },
  async (t) => {
    const { instances } = await threeProcesses(t);
    const { account, terminal } = await merchant(instances[0]!.api, 'race@example.com');
    const runs: OrderRun[] = [];
    // Each interleaving with the merchant on one process and the terminal on another (a proxy splits the scenario's requests).
    const pairs = [
      [0, 1, 'simultaneous'],
      [2, 0, 'merchant-delayed'],
      [1, 2, 'lost-answer-retry'],
    ] as const;
    const races = await loadRaceScenarios(await bundledRaceFiles());
    for (const [merchantAt, terminalAt, interleaving] of pairs) {
      const split = await startSplitProxy(instances[merchantAt]!.baseUrl, instances[terminalAt]!.baseUrl);
      t.teardown(split.close);
      const race = races.find((each) => each.name === interleaving)!;
      const played = await playRace(split.baseUrl, { account, terminal }, race, 15, merchantAt * 10 + terminalAt);
      t.same(played.failures, [], `${interleaving}: every expectation held`);
      runs.push(...played.runs);
    }
    t.same(checkInvariants(runs), [], `${runs.length} orders, no invariant broken`);
  },
);

t.test(
  'three processes deliver every webhook once per attempt, in order per session, through a relay connected to one of them',
  { skip: postgresSkip() },
  async (t) => {
    const { instances } = await threeProcesses(t);
    const [a] = instances as [Instance];
    // The relay is connected to the first process only; deliveries claimed by the others reach it through the database.
    const { account, token, receiver, agreement } = await relayedAccount(t, a, 'hooks@example.com');
    const sessions = 24;
    await Promise.all(
      Array.from({ length: sessions }, async (_, i) => {
        const at = (k: number) => instances[(i + k) % 3]!.api;
        const session = (
          await at(0).post('/api/v1/ext/payment-sessions/buttons', {
            json: {
              agreement_id: agreement.agreement_id,
              amount_reference: 10 + i,
              webhook_url: 'http://localhost:4000/hook',
            },
            token,
          })
        ).body;
        t.equal(
          (
            await at(1).post(`/control/sessions/${session.session_id}/outcome`, {
              json: { leg: 1, outcome: 'paid' },
              token,
            })
          ).status,
          200,
        );
        t.equal(
          (
            await at(2).post(`/control/sessions/${session.session_id}/outcome`, {
              json: { leg: 2, outcome: 'accredited' },
              token,
            })
          ).status,
          200,
        );
      }),
    );
    const expected = sessions * 3;
    t.ok(await until(() => receiver.received.length >= expected, 60_000), `all ${expected} events received`);
    await new Promise((resolve) => setTimeout(resolve, 500)); // a duplicate, if any, would arrive now

    t.equal(receiver.received.length, expected, 'no event received twice');
    t.equal(new Set(receiver.received.map((r) => r.key)).size, expected, 'one idempotency key per event');
    const bySession = new Map<string, string[]>();
    for (const r of receiver.received) bySession.set(r.session_id, [...(bySession.get(r.session_id) ?? []), r.event]);
    t.same(
      [...bySession.values()].filter(
        (events) => events.join() !== 'payment_session.created,payment_session.paid,payment_session.accredited',
      ),
      [],
      'created, paid, accredited: in order for every session',
    );

    const trace = (await a.api.get('/console/trace?type=webhook.attempt&limit=1000', { token: account.console_token }))
      .body.data as Array<{ event_id: string; instance: string; routing: string; status: number }>;
    t.equal(trace.length, expected, 'exactly one attempt per event');
    t.same(
      trace.filter((attempt) => attempt.routing !== 'relay' || attempt.status !== 200),
      [],
      'each through the relay, answered 200',
    );
    t.ok(
      new Set(trace.map((attempt) => attempt.instance)).size > 1,
      'attempts made by more than one process, all reaching the relay on the first',
    );
  },
);

t.test(
  'a process killed with SIGKILL mid-load loses nothing it acknowledged, and its webhooks are delivered by the others',
  { skip: postgresSkip() },
  async (t) => {
    // A short lease, so the others take over the victim's deliveries soon.
    const { instances } = await threeProcesses(t, { WEBHOOK_LEASE_MS: '6000' });
    const [a, b, victim] = instances as [Instance, Instance, Instance];
    const { account, terminal, token, receiver, agreement } = await relayedAccount(t, a, 'kill@example.com');

    const settlements: string[] = [];
    const sessions: string[] = [];
    let sent = 0;
    let refused = 0;
    let signed = 0;
    let killed = false;
    const worker = async (w: number) => {
      for (let i = 0; i < 40; i += 1) {
        const instance = instances[(w + i) % 3]!;
        if (killed && instance === victim) continue;
        sent += 1;
        try {
          if (i % 2 === 0) {
            const pos = new PosClient({
              baseUrl: instance.baseUrl,
              serialNumber: terminal.serialNumber,
              secret: terminal.secret,
              now: () => Date.now() + ++signed,
            });
            const batchNumber = `K${w}-${i}`;
            const answer = await pos.notifySettlement({
              batchNumber,
              transactionCount: i,
              closedAt: new Date(1_790_000_000_000 + w * 1000 + i).toISOString(),
              currencyReference: 'USD',
              terminal: terminal.serialNumber,
              debitBatch: `D${w}-${i}`,
            });
            if (answer.status === 200 || answer.status === 201) settlements.push(batchNumber);
            else refused += 1;
          } else {
            const answer = await fetch(`${instance.baseUrl}/api/v1/ext/payment-sessions/buttons`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
              body: JSON.stringify({
                agreement_id: agreement.agreement_id,
                amount_reference: 1 + i,
                webhook_url: 'http://localhost:4000/hook',
              }),
            });
            if (answer.status === 201) sessions.push(((await answer.json()) as { session_id: string }).session_id);
            else refused += 1;
          }
        } catch {
          refused += 1; // the connection died with the process: not acknowledged
        }
        // Kill the victim once the load is well under way, with requests of its own in flight.
        if (!killed && sent >= 120) {
          killed = true;
          victim.child.kill('SIGKILL');
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
    await stopped(victim.child);
    t.equal(victim.child.signalCode, 'SIGKILL');
    t.ok(
      settlements.length > 0 && sessions.length > 0,
      `${settlements.length} settlements and ${sessions.length} sessions acknowledged, ${refused} requests cut or refused`,
    );

    // Everything acknowledged, by any process, is there; read through the survivors.
    const listed: string[] = [];
    for (let page = 1; ; page += 1) {
      const answer = await b.api.get(
        `/api/v1/merchants/${account.merchant_id}/pos-terminals/${terminal.serialNumber}/settlements?size=100&page=${page}`,
        { token },
      );
      const content = answer.body.data as Array<{ batchNumber: string }>;
      listed.push(...content.map((s) => s.batchNumber));
      if (content.length < 100) break;
    }
    t.same(
      settlements.filter((batch) => !listed.includes(batch)),
      [],
      'every acknowledged settlement is stored',
    );
    const missing = [];
    for (const id of sessions)
      if ((await a.api.get(`/api/v1/ext/payment-sessions/${id}`, { token })).status !== 200) missing.push(id);
    t.same(missing, [], 'every acknowledged session is stored');

    // Every acknowledged session's created event reaches the receiver, the victim's leased ones after their lease expires.
    const delivered = () =>
      new Set(receiver.received.filter((r) => r.event === 'payment_session.created').map((r) => r.session_id));
    t.ok(
      await until(() => sessions.every((id) => delivered().has(id)), 60_000),
      "every acknowledged session's webhook delivered",
    );
  },
);

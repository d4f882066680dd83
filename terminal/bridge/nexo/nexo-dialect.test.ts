import t, { type Test } from 'tap';
import { realTimers } from '../../protocol/timers.js';
import type { NexoMessage } from '../../protocol/nexo/messages.js';
import { BridgeState } from '../bridge-state.js';
import type { AskKind } from '../dialect.js';
import type { NexoClient } from './nexo-client.js';
import { endpointStream, nexoDialect } from './nexo-dialect.js';
import { NexoJournal } from './nexo-journal.js';

// The nexo bridge after a request lost its answer, with the terminal's
// TransactionStatus answer scripted: done, running, never received, and
// the answer no rule covers, which goes to an operator, never a guess.

const answer = (category: string, body: Record<string, unknown>): NexoMessage => ({
  header: {
    MessageClass: 'Service',
    MessageCategory: category,
    MessageType: 'Response',
    ServiceID: 'X',
    SaleID: 'POS-1',
    POIID: 'V400m-1',
  },
  body,
});

async function afterLostAnswer(t: Test, status: Record<string, unknown>) {
  const dir = t.testdir();
  const state = await BridgeState.open(dir, 'POS-1');
  const journal = await NexoJournal.open(state.dir);
  const sent: string[] = [];
  const client = {
    send: async (message: NexoMessage) => {
      sent.push(message.header.MessageCategory);
      return message.header.MessageCategory === 'Diagnosis'
        ? answer('Diagnosis', { Response: { Result: 'Success' } })
        : answer('TransactionStatus', status);
    },
  } as unknown as NexoClient;
  const held: Array<{ kind: AskKind; orderId: string; reason: string }> = [];
  const device = nexoDialect({ journal, client, poiid: 'V400m-1', saleId: 'POS-1' }).create({
    state,
    timers: realTimers,
    answerTimeoutMs: 1000,
    log: () => undefined,
    error: () => undefined,
    iso: () => '2026-11-28T10:00:00.000Z',
    hold: async (kind, orderId, reason) => void held.push({ kind, orderId, reason }),
  });
  device.connect(await endpointStream());
  await journal.begin({
    kind: 'payment',
    serviceId: 'S1',
    orderId: 'o-1',
    amount: 1000,
    currency: 'EUR',
    startedAt: 'then',
  });
  await device.establish();
  return { journal, held, sent };
}

t.test('the terminal says it never got it: asked again, nothing held', async (t) => {
  const { journal, held } = await afterLostAnswer(t, { Response: { Result: 'Failure', ErrorCondition: 'NotFound' } });
  t.equal(journal.inFlight, null);
  t.same(held, []);
});

t.test('still running: nothing else goes until it ends', async (t) => {
  const { journal, held } = await afterLostAnswer(t, { Response: { Result: 'Failure', ErrorCondition: 'InProgress' } });
  t.match(journal.inFlight, { serviceId: 'S1' }, 'still in flight');
  t.same(held, []);
});

t.test('an answer no rule covers: held for an operator, never paid again by itself', async (t) => {
  const { journal, held, sent } = await afterLostAnswer(t, {
    Response: { Result: 'Failure', ErrorCondition: 'Refusal' },
  });
  t.equal(journal.inFlight, null);
  t.match(held, [
    {
      kind: 'charge',
      orderId: 'o-1',
      reason: /cannot say what became of payment S1 \(TransactionStatus: Failure\/Refusal\)/,
    },
  ]);
  t.same(sent, ['Diagnosis', 'TransactionStatus'], 'no payment sent again');
});

import { join } from 'node:path';
import t from 'tap';
import { PosClient } from '../../contracts/clients/pos-client.js';
import { merchantWithTerminal, startTestServer } from '../../server/testing/test-server.js';
import { Bridge } from './bridge.js';
import { BridgeState } from './bridge-state.js';
import { zvtDialect } from './zvt/zvt-dialect.js';
import { ZvtJournal } from './zvt/zvt-journal.js';

// A bridge given the wrong secret is turned away by a server that answers:
// the log says the server refuses this terminal and what to check, not that
// the server is unavailable.

t.test('a wrong terminal secret is said as a refusal, with what to check, not as an outage', async (t) => {
  const server = await startTestServer(t);
  const merchant = await merchantWithTerminal(server);
  const state = await BridgeState.open(join(t.testdir(), 'state'), merchant.serialNumber);
  const errors: string[] = [];
  const bridge = new Bridge({
    dialect: zvtDialect({ journal: await ZvtJournal.open(state.dir), transport: 'tcp' }),
    open: () => Promise.reject(new Error('no terminal in this test')),
    client: new PosClient({ baseUrl: server.baseUrl, serialNumber: merchant.serialNumber, secret: 'ab'.repeat(32) }),
    state,
    serverUrl: server.baseUrl,
    log: () => undefined,
    error: (line) => errors.push(line),
  });
  const courier = (bridge as unknown as { courier: { listOrders(status: string): Promise<unknown> } }).courier;
  const step = (
    bridge as unknown as { courier: { step<T>(call: string, work: () => Promise<T>, otherwise: T): Promise<T> } }
  ).courier;
  await step.step('listing orders', () => courier.listOrders('PENDING'), []);
  t.match(
    errors[0],
    /^server http:\/\/\S+ refuses this terminal for listing orders: the server refuses this terminal's signature \(401 SIGNATURE_INVALID[^)]*\): check the terminal's secret and the clock/,
  );
  t.notMatch(errors.join('\n'), /unavailable/);
});

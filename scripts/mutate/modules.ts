// The modules `npm run mutate` mutates, each against the fast tests that
// cover it (issue 31): the pure domain, protocol and security logic, where a
// surviving mutant is behaviour no test notices. Slow end-to-end tests are
// left out on purpose: each mutant reruns the module's tests.

export interface MutatedModule {
  /** The source file mutated. */
  file: string;
  /** The test files run against each mutant. */
  tests: string[];
}

export const MUTATED_MODULES: MutatedModule[] = [
  // Orders and sessions: state transitions and money.
  { file: 'server/orders/transitions.ts', tests: ['server/orders/transitions.test.ts'] },
  { file: 'server/orders/order.ts', tests: ['server/orders/order.test.ts'] },
  { file: 'server/sessions/session-machine.ts', tests: ['server/sessions/session-machine.test.ts'] },
  { file: 'server/sessions/money.ts', tests: ['server/sessions/money.test.ts'] },
  { file: 'server/sessions/session-input.ts', tests: ['server/sessions/session-input.test.ts'] },
  { file: 'server/settlements/settlement.ts', tests: ['server/settlements/settlement.test.ts'] },
  // Terminals: the request signature and the replay decision (memory and store-backed).
  { file: 'contracts/pos-signature.ts', tests: ['server/terminals/pos-signature.test.ts'] },
  {
    file: 'server/terminals/pos-signatures.ts',
    tests: ['server/terminals/pos-signature.test.ts', 'server/terminals/pos-signature-shared.test.ts'],
  },
  {
    file: 'server/http/pos-signature-guard.ts',
    tests: ['server/terminals/pos-signature.test.ts', 'server/terminals/pos-signature-shared.test.ts'],
  },
  { file: 'server/terminals/memory-signature-ledger.ts', tests: ['server/terminals/memory-signature-ledger.test.ts'] },
  { file: 'server/terminals/store-signature-ledger.ts', tests: ['server/terminals/store-signature-ledger.test.ts'] },
  // Webhooks: where a delivery may go, how it is signed, when it is retried.
  { file: 'server/webhooks/special-addresses.ts', tests: ['server/webhooks/routing.test.ts'] },
  { file: 'server/webhooks/routing.ts', tests: ['server/webhooks/routing.test.ts'] },
  { file: 'contracts/webhook-signature.ts', tests: ['contracts/webhook-signature.test.ts'] },
  { file: 'server/webhooks/ladder.ts', tests: ['server/webhooks/ladder.test.ts'] },
  { file: 'server/clock/due-times.ts', tests: ['server/clock/due-times-rules.test.ts'] },
  { file: 'server/webhooks/turns.ts', tests: ['server/webhooks/turns.test.ts'] },
  // The store: what the journal and the snapshot accept, how a list is planned.
  { file: 'server/store/embedded/journal-codec.ts', tests: ['server/store/embedded/journal-codec.test.ts'] },
  { file: 'server/store/embedded/row-claims.ts', tests: ['server/store/embedded/row-claims.test.ts'] },
  {
    file: 'server/store/embedded/claim-steps.ts',
    tests: ['server/store/embedded/embedded-store.test.ts', 'server/store/embedded/row-claims.test.ts'],
  },
  {
    file: 'server/store/embedded/snapshot-codec.ts',
    tests: ['server/store/embedded/snapshot-codec.test.ts', 'server/store/embedded/integrity.test.ts'],
  },
  {
    file: 'server/store/query.ts',
    tests: ['server/store/query.test.ts', 'server/store/embedded/record-index.test.ts'],
  },
  { file: 'contracts/common/write-fully.ts', tests: ['contracts/common/write-fully.test.ts'] },
  { file: 'server/store/postgres/pg-tables.ts', tests: ['server/store/postgres/pg-tables.test.ts'] },
  // The ZVT bridge: whether a payment stands (its status information, the repeat receipt), and the session's timers.
  {
    file: 'terminal/bridge/zvt/status-reading.ts',
    tests: ['terminal/bridge/zvt/status-reading.test.ts', 'terminal/bridge/zvt/zvt-transactions.test.ts'],
  },
  { file: 'terminal/bridge/zvt/zvt-transactions.ts', tests: ['terminal/bridge/zvt/zvt-transactions.test.ts'] },
  {
    file: 'terminal/bridge/zvt/zvt-journal.ts',
    tests: ['terminal/bridge/zvt/zvt-journal.test.ts', 'terminal/bridge/zvt/zvt-transactions.test.ts'],
  },
  {
    file: 'terminal/bridge/zvt/ecr-session.ts',
    tests: ['terminal/bridge/zvt/ecr-session.test.ts', 'terminal/device/zvt/departures.test.ts'],
  },
  // The serial line: framing, link, messages.
  { file: 'terminal/protocol/frame.ts', tests: ['terminal/protocol/frame.test.ts'] },
  { file: 'terminal/protocol/frame-parser.ts', tests: ['terminal/protocol/frame.test.ts'] },
  {
    file: 'terminal/protocol/link.ts',
    tests: ['terminal/protocol/link-rules.test.ts', 'terminal/protocol/link.test.ts'],
  },
  { file: 'terminal/protocol/messages.ts', tests: ['terminal/protocol/messages.test.ts'] },
  // The Transbank POS Integrado dialect: its message tables and the emulated POS.
  { file: 'terminal/protocol/transbank/messages.ts', tests: ['terminal/protocol/transbank/messages.test.ts'] },
  { file: 'terminal/device/transbank/pos-state.ts', tests: ['terminal/device/transbank/pos-state.test.ts'] },
  // The bridge: what a server answer means for a record the device holds; when a daily close is due or missed.
  { file: 'terminal/bridge/server-verdict.ts', tests: ['terminal/bridge/bridge.test.ts'] },
  { file: 'terminal/bridge/close-schedule.ts', tests: ['terminal/bridge/close-schedule.test.ts'] },
  // The Transbank bridge's decisions: which orders a POS carries, what its answers prove after a lost answer.
  { file: 'terminal/bridge/transbank/sale-rules.ts', tests: ['terminal/bridge/transbank/sale-rules.test.ts'] },
  // The ZVT codec (PA00P015/PA00P016): CRC, serial framing, APDUs, BCD, TLV, bitmaps.
  {
    file: 'terminal/protocol/zvt/crc.ts',
    tests: ['terminal/protocol/zvt/codec.test.ts', 'terminal/protocol/zvt/codec-edges.test.ts'],
  },
  {
    file: 'terminal/protocol/zvt/serial-frame.ts',
    tests: ['terminal/protocol/zvt/codec.test.ts', 'terminal/protocol/zvt/codec-edges.test.ts'],
  },
  {
    file: 'terminal/protocol/zvt/apdu.ts',
    tests: ['terminal/protocol/zvt/codec.test.ts', 'terminal/protocol/zvt/codec-edges.test.ts'],
  },
  {
    file: 'terminal/protocol/zvt/bcd.ts',
    tests: ['terminal/protocol/zvt/codec.test.ts', 'terminal/protocol/zvt/codec-edges.test.ts'],
  },
  {
    file: 'terminal/protocol/zvt/tlv.ts',
    tests: ['terminal/protocol/zvt/codec.test.ts', 'terminal/protocol/zvt/codec-edges.test.ts'],
  },
  {
    file: 'terminal/protocol/zvt/bitmaps.ts',
    tests: ['terminal/protocol/zvt/codec.test.ts', 'terminal/protocol/zvt/codec-edges.test.ts'],
  },
  // The relay client's cursor: what it resumes from, and which answers move it.
  { file: 'contracts/clients/relay-cursor.ts', tests: ['contracts/clients/relay-cursor.test.ts'] },
  // The scenario engine: what decides whether a scenario passes, and what a scenario file may say.
  {
    file: 'contracts/clients/scenario/expectations.ts',
    tests: ['contracts/clients/scenario/expectations.test.ts', 'contracts/clients/scenario/expectations-edges.test.ts'],
  },
  {
    file: 'contracts/clients/scenario/scenario-format.ts',
    tests: ['contracts/clients/scenario/scenario-format.test.ts', 'contracts/clients/scenario/scenario-yaml.test.ts'],
  },
  // The contract suite's profiles and amount rule.
  { file: 'contracts/profiles.ts', tests: ['contracts/profiles-rules.test.ts'] },
  { file: 'contracts/money-amount.ts', tests: ['contracts/money-amount.test.ts'] },
];

/** A module's score must reach this, or the run fails. */
export const BREAK_THRESHOLD = 90;

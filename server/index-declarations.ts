import { orderIndexes } from './orders/order.js';
import { sessionIndexes } from './sessions/session.js';
import {
  agreementIndexes,
  batchIndexes,
  eventIndexes,
  partnerIndexes,
  splitAgreementIndexes,
  stopIndexes,
} from './sessions/session-indexes.js';
import { settlementIndexes } from './settlements/settlement.js';
import type { IndexDeclarations } from './store/embedded/memory-state.js';
import { signatureIndexes } from './terminals/signature-ledger.js';
import { terminalIndexes } from './terminals/terminal.js';
import { traceIndexes } from './trace/trace.js';
import { relayDeliveryIndexes } from './relay/relay-positions.js';
import { relayStateIndexes } from './relay/relay-state.js';
import { deliveryIndexes, scheduleIndexes } from './clock/due-times.js';
import type { IndexDeclaration } from './store/store.js';

/** What a reset walks: an account's own. */
const byAccount: IndexDeclaration[] = [{ equals: ['account_id'] }];

/**
 * Every collection whose lists go through an index, with the query shapes
 * each answers, declared beside its record type. The stores build their
 * indexes from this; a list of one of these collections that no declared
 * index serves fails in tests.
 */
export const indexDeclarations: IndexDeclarations = {
  orders: orderIndexes,
  settlements: settlementIndexes,
  terminals: terminalIndexes,
  trace: traceIndexes,
  sessions: sessionIndexes,
  pos_signatures: signatureIndexes,
  events: eventIndexes,
  batches: batchIndexes,
  stops: stopIndexes,
  agreements: agreementIndexes,
  partners: partnerIndexes,
  split_agreements: splitAgreementIndexes,
  deliveries: deliveryIndexes,
  schedules: scheduleIndexes,
  webhook_outcomes: byAccount,
  relay_deliveries: relayDeliveryIndexes,
  relay_states: relayStateIndexes,
  split_links: byAccount,
};

import { CATEGORIES, isServiceId, type MessageHeader } from '../../protocol/nexo/messages.js';
import { withService, type NexoTerminalState } from './nexo-state.js';
import { failure } from './responses.js';

// Two rules of the emulated terminal that need nothing but their inputs:
// which requests it refuses outright, and what a restart does to a
// transaction it cut short.

/** What breaks the protocol's rules, in words, or undefined. */
export function requestProblem(header: MessageHeader, poiid: string): string | undefined {
  if (header.MessageClass !== 'Service') return `MessageClass ${String(header.MessageClass)} is not Service`;
  if (header.MessageType !== 'Request') return `MessageType ${String(header.MessageType)} is not Request`;
  if (!CATEGORIES.includes(header.MessageCategory as (typeof CATEGORIES)[number]))
    return `MessageCategory ${String(header.MessageCategory)} is not one this terminal answers`;
  if (!isServiceId(header.ServiceID)) return 'ServiceID must be 1 to 10 characters';
  if (typeof header.SaleID !== 'string' || header.SaleID.length === 0) return 'SaleID is missing';
  if (header.POIID !== poiid) return `POIID ${String(header.POIID)} is not this terminal (${poiid})`;
  return undefined;
}

/** A payment the terminal's own restart cut short never reached the card: it ends Failure, as a real one would. */
export function endInterrupted(state: NexoTerminalState, poiid: string): NexoTerminalState {
  let next = state;
  for (const [key, service] of Object.entries(state.services)) {
    if (service.response) continue;
    const [saleId, serviceId] = key.split('\u0000') as [string, string];
    const header: MessageHeader = {
      ProtocolVersion: '3.0',
      MessageClass: 'Service',
      MessageCategory: service.category,
      MessageType: 'Request',
      SaleID: saleId,
      ServiceID: serviceId,
      POIID: poiid,
    };
    next = withService(next, key, {
      ...service,
      response: failure(header, 'Aborted', 'the terminal restarted before the transaction ended'),
    });
  }
  return next;
}

// The id each collection stores its records under, derived from the record.

import { orderKey } from '../orders/order.js';
import { settlementKey } from '../settlements/settlement.js';

/** A split agreement's link of an agreement and a partner: at most one per pair. */
export const splitLinkKey = (agreementId: string, partnerId: string) => `${agreementId}/${partnerId}`;

/** The id each collection stores its records under. */
export function keyOf(collection: string, record: Record<string, unknown>): string {
  switch (collection) {
    case 'sessions':
    case 'schedules':
      return record.session_id as string;
    case 'events':
    case 'deliveries':
    case 'webhook_outcomes':
    case 'relay_deliveries':
      return record.event_id as string;
    case 'trace':
      return record.id as string;
    case 'relay_states':
      return record.account_id as string;
    case 'batches':
      return record.batch_id as string;
    case 'stops':
      return record.stop_id as string;
    case 'agreements':
      return record.agreement_id as string;
    case 'partners':
      return record.partner_id as string;
    case 'split_agreements':
      return record.split_agreement_id as string;
    case 'split_links':
      return splitLinkKey(record.agreement_id as string, record.partner_id as string);
    case 'terminals':
      return record.serialNumber as string;
    case 'orders':
      return orderKey(record.merchantId as string, record.orderId as string);
    case 'settlements':
      return settlementKey(record.terminal as string, record.batchNumber as string);
    default:
      throw new Error(`no key rule for ${collection}`);
  }
}

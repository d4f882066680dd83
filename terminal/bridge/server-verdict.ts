import type { Answer, PosResponse } from '../../contracts/clients/pos-client.js';
import type { MoneyRecord, PaymentRecord } from './money-record.js';

// What the server's answer to a record means for the record on the device.
// A record is confirmed to the device (and so deleted there) only when the
// server holds that same record: a 2xx, or a 409 whose state proves it is
// the same. A fault of the server decides nothing: the record stays and is
// sent again. Anything else means the server holds something different,
// and the record is held for an operator: never confirmed on a guess.

export type Verdict =
  | { kind: 'confirm'; note: string }
  | { kind: 'fault'; cause: string }
  | { kind: 'hold'; reason: string }
  /**
   * A sale answered 409 on an order the server has charged: PAID, or since then VOID_PENDING or VOIDED
   * (the sale was recorded, the device's confirmation lost, and the merchant voided it meanwhile).
   * The same sale only with the same authorization code.
   */
  | { kind: 'compare-paid'; status: ChargedStatus };

/** The states of an order that was charged; each keeps the authorization code it was paid with. */
export const chargedStatuses = ['PAID', 'VOID_PENDING', 'VOIDED'] as const;
export type ChargedStatus = (typeof chargedStatuses)[number];
const isCharged = (status: unknown): status is ChargedStatus => chargedStatuses.includes(status as ChargedStatus);

export function verdictFor(record: MoneyRecord, response: PosResponse<Answer>): Verdict {
  const { status, body } = response;
  const said = `${status} ${body.code ?? ''}${body.message ? `: ${body.message}` : ''}`.trim();
  if (status >= 200 && status < 300)
    return { kind: 'confirm', note: `server ${status}${body.detail ? ` (${body.detail})` : ''}` };
  if (status === 401)
    return {
      kind: 'fault',
      cause: `the server refuses this terminal's signature (${said}): check the terminal's secret and the clock`,
    };
  if (status === 408 || status === 425 || status === 429 || status >= 500)
    return { kind: 'fault', cause: `the server answered ${said}` };
  if (status === 409) {
    if (record.kind === 'payment' && isCharged(body.currentStatus))
      return { kind: 'compare-paid', status: body.currentStatus };
    if (record.kind === 'void' && body.currentStatus === 'VOIDED')
      return { kind: 'confirm', note: 'server 409: the order is already VOIDED' };
    if (record.kind === 'settlement')
      return { kind: 'hold', reason: `the server holds batch ${record.batchNumber} with other fields (${said})` };
    return {
      kind: 'hold',
      reason: `order ${record.orderId} is ${body.currentStatus ?? 'in another state'} on the server (${said})`,
    };
  }
  return { kind: 'hold', reason: `the server refused the record (${said})` };
}

/** The verdict once the charged order is known: the same authorization code is the same sale; another is a second charge. */
export function comparePaid(
  record: PaymentRecord,
  order: { authorizationCode?: string } | undefined,
  status: ChargedStatus = 'PAID',
): Verdict {
  if (!order)
    return {
      kind: 'hold',
      reason: `order ${record.orderId} is ${status} on the server, but could not be read to compare`,
    };
  const since = status === 'PAID' ? '' : ` (and ${status} since)`;
  if (order.authorizationCode === record.authorizationCode)
    return { kind: 'confirm', note: `server 409: the order was already PAID with this authorization code${since}` };
  return {
    kind: 'hold',
    reason: `double charge: order ${record.orderId} was already PAID with authorization ${order.authorizationCode ?? '(none)'}${since}; this sale has authorization ${record.authorizationCode} — the customer may have paid twice`,
  };
}

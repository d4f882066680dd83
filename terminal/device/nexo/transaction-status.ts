import type { Body, MessageHeader, NexoMessage } from '../../protocol/nexo/messages.js';
import { serviceKey, type NexoTerminalState } from './nexo-state.js';
import { answer, responseField } from './responses.js';

/**
 * TransactionStatus: the stored response of the ServiceID it names (or of
 * the last payment), repeated as it was, with its receipts only when a
 * reprint is asked; InProgress while it runs, NotFound when never received.
 */
export function transactionStatus(state: NexoTerminalState, header: MessageHeader, body: Body): NexoMessage {
  const reference = body.MessageReference as Body | undefined;
  const key =
    reference && typeof reference.ServiceID === 'string'
      ? serviceKey(typeof reference.SaleID === 'string' ? reference.SaleID : header.SaleID, reference.ServiceID)
      : state.lastPayment;
  const service = key === undefined ? undefined : state.services[key];
  const status = (condition: 'InProgress' | 'NotFound', message: string) =>
    answer(header, { Response: responseField('Failure', condition, { message }) });
  if (!service) return status('NotFound', 'the terminal never received that ServiceID');
  if (!service.response) return status('InProgress', 'the transaction is still running');
  const original = service.response;
  const category = original.header.MessageCategory;
  return answer(header, {
    Response: responseField('Success'),
    MessageReference: {
      MessageCategory: category,
      SaleID: original.header.SaleID,
      ServiceID: original.header.ServiceID,
    },
    RepeatedMessageResponse: {
      MessageHeader: original.header,
      RepeatedResponseMessageBody: {
        [`${category}Response`]: withReceipts(original.body, body.ReceiptReprintFlag === true),
      },
    },
  });
}

/** A repeated payment response carries its receipts only when a reprint was asked for. */
function withReceipts(body: Body, reprint: boolean): Body {
  if (reprint || !('PaymentReceipt' in body)) return body;
  const { PaymentReceipt: _receipts, ...rest } = body;
  return rest;
}

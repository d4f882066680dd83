import type { Account } from '../accounts/account.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { isUtf8 } from 'node:buffer';
import { appError } from '../errors.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-depth.js';
import type { Store, Transaction } from '../store/store.js';
import { trace } from '../trace/trace.js';

export type ReceiverKind = 'paid' | 'accredited' | 'fail' | 'captura';

/** INTERFACE.md §8: paid and accredited answer 200, fail 500 on purpose, captura 200 to anything. */
export const receiverStatus: Record<ReceiverKind, number> = { paid: 200, accredited: 200, fail: 500, captura: 200 };

export const FAILS_ON_PURPOSE = 'this receiver answers 500 on purpose, to exercise retries';

/** The body a default receiver answers with (the fail receiver's is the error body every 500 of ours has). */
export function receiverAnswerBody(kind: ReceiverKind): string {
  return JSON.stringify(
    receiverStatus[kind] >= 500 ? { message: FAILS_ON_PURPOSE, code: 'RECEIVER_FAILS_ON_PURPOSE' } : { received: true },
  );
}

export interface ReceivedWebhook {
  rawBody: Buffer;
  /** Lower-case names. */
  headers: Record<string, string>;
}

/**
 * The default receivers /console/hooks/{account_id}/(paid|accredited|fail|captura).
 * Every call is recorded as webhook.received with the raw body as received,
 * the parsed body (null when it is not JSON), the headers, and the
 * signature and idempotency key taken out (INTERFACE.md §8).
 * Whatever the body (any bytes, any depth, any media type, up to the size
 * limit), each answers its documented status: captura "accepts anything".
 * A body nested too deep to parse safely is kept raw, its parsed form left
 * out with the reason; bytes that are not UTF-8 are kept exactly, in base64
 * beside the text.
 */
export class Receivers {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  /** Records a call in its own transaction (a call from outside). */
  async receive(accountId: string, kind: ReceiverKind, webhook: ReceivedWebhook): Promise<number> {
    return this.store.transact((tx) => this.record(tx, accountId, kind, webhook));
  }

  /** Records a call inside the caller's transaction (an in-process loopback delivery); answers the status. */
  async record(
    tx: Pick<Transaction, 'get' | 'insert'>,
    accountId: string,
    kind: ReceiverKind,
    webhook: ReceivedWebhook,
  ): Promise<number> {
    const status = receiverStatus[kind];
    const account = await tx.get<Account>('accounts', accountId);
    if (!account) throw appError('NOT_FOUND', `account ${accountId}`);
    const rawBody = webhook.rawBody.toString('utf8');
    const exactBytes = isUtf8(webhook.rawBody)
      ? {}
      : {
          raw_body_base64: webhook.rawBody.toString('base64'),
          raw_body_note:
            'not UTF-8: raw_body shows it decoded with replacement characters; raw_body_base64 holds the exact bytes',
        };
    let body: unknown = null;
    let bodyOmitted: string | undefined;
    if (nestsDeeperThan(rawBody)) {
      bodyOmitted = `nested deeper than ${MAX_JSON_DEPTH} levels: not parsed (raw_body holds it as received)`;
    } else {
      try {
        body = JSON.parse(rawBody);
      } catch {
        // Not JSON: the receivers accept anything; the raw body is what was received.
      }
    }
    const event = body as { event_id?: unknown; data?: { session_id?: unknown } } | null;
    trace(tx, accountId, 'webhook.received', iso(accountNow(this.clock, account)), {
      receiver: kind,
      status,
      ...(typeof event?.data?.session_id === 'string' ? { session_id: event.data.session_id } : {}),
      ...(typeof event?.event_id === 'string' ? { event_id: event.event_id } : {}),
      raw_body: rawBody,
      ...exactBytes,
      body,
      ...(bodyOmitted ? { body_omitted: bodyOmitted } : {}),
      headers: webhook.headers,
      signature: webhook.headers['svc-signature'] ?? null,
      idempotency_key: webhook.headers['idempotency-key'] ?? null,
    });
    return status;
  }
}

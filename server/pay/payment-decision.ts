import { methodFields, outcomeOfKey, type PageOutcome } from './magic-keys.js';

// What the payment page's form decides (INTERFACE.md §8), apart from the
// route that reads it and the page that shows it: whether the session can
// be paid, which method the agreement allows, which of its fields are
// missing, what the payment key means, and what the payer is told. Pure:
// the route loads the session and carries the decision out.

/** The form as posted: the page names fields method.field; a JSON client may send them bare. */
export type PaymentForm = Readonly<Record<string, string | undefined>>;

export type Leg2 = 'accredited' | 'accreditation_failed';

export type PaymentFormDecision =
  | { kind: 'refused'; status: 400 | 409; code: 'VALIDATION_FAILED' | 'SESSION_NOT_PAYABLE'; message: string }
  | { kind: 'pay'; method: string; result: PageOutcome; leg2: Leg2; title: string; message: string };

const FAILURE_REASONS: Record<Extract<PageOutcome, { outcome: 'failed' }>['reason'], string> = {
  insufficient_funds: 'The payment failed: insufficient funds.',
  rejected_by_issuer: 'The payment failed: rejected by the issuer.',
  invalid_key: 'The payment failed: the payment key is not valid.',
};

const refused = (status: 400 | 409, message: string): PaymentFormDecision => ({
  kind: 'refused',
  status,
  code: status === 409 ? 'SESSION_NOT_PAYABLE' : 'VALIDATION_FAILED',
  message,
});

/** What the payer is told of the outcome, and the result page's title. */
export function outcomeWords(result: PageOutcome, leg2: Leg2): { title: string; message: string } {
  if (result.outcome === 'paid')
    return {
      title: 'Payment accepted',
      message: `Paid. As you chose, the accreditation to the merchant will ${leg2 === 'accredited' ? 'succeed' : 'fail'}.`,
    };
  return {
    title: 'Payment not completed',
    message: result.outcome === 'expired' ? 'The session expired.' : FAILURE_REASONS[result.reason],
  };
}

/** The form's decision for a session in `status` whose agreement allows `methods` (in its order). */
export function decidePayment(form: PaymentForm, status: string, methods: readonly string[]): PaymentFormDecision {
  if (status !== 'pending') return refused(409, `this payment is ${status}, not pending`);
  const method = form.method ?? methods[0] ?? '';
  if (!methods.includes(method)) return refused(400, `method must be one of the agreement's: ${methods.join(', ')}`);
  const missing = (methodFields[method] ?? [])
    .filter((field) => !(form[`${method}.${field.name}`] ?? form[field.name])?.trim())
    .map((field) => field.label);
  if (missing.length > 0) return refused(400, `fill in: ${missing.join(', ')}`);
  if (!form.payment_key?.trim()) return refused(400, 'enter the payment key');
  const result = outcomeOfKey(form.payment_key);
  const leg2: Leg2 = form.leg2 === 'accreditation_failed' ? 'accreditation_failed' : 'accredited';
  return { kind: 'pay', method, result, leg2, ...outcomeWords(result, leg2) };
}

/** Form names (method.field) whose values never come back in a page: card data. */
const NEVER_ECHOED = new Set(
  Object.entries(methodFields).flatMap(([method, fields]) =>
    fields.filter((field) => field.neverEchoed).map((field) => `${method}.${field.name}`),
  ),
);

/** What a refused form shows again: what was chosen and typed, never the key, the card number or the code. */
export function echoOf(form: PaymentForm): { method?: string; leg2?: string; fields: Record<string, string> } {
  return {
    ...(form.method ? { method: form.method } : {}),
    ...(form.leg2 ? { leg2: form.leg2 } : {}),
    fields: Object.fromEntries(
      Object.entries(form).filter(
        (entry): entry is [string, string] =>
          entry[1] !== undefined && entry[0].includes('.') && !NEVER_ECHOED.has(entry[0]),
      ),
    ),
  };
}

// INTERFACE.md §8: the payment page's magic keys.

export type PageOutcome =
  | { outcome: 'paid' }
  | { outcome: 'failed'; reason: 'insufficient_funds' | 'rejected_by_issuer' | 'invalid_key' }
  | { outcome: 'expired' };

export function outcomeOfKey(key: string): PageOutcome {
  switch (key.trim()) {
    case '000000':
      return { outcome: 'paid' };
    case '111111':
      return { outcome: 'failed', reason: 'insufficient_funds' };
    case '222222':
      return { outcome: 'failed', reason: 'rejected_by_issuer' };
    case '333333':
      return { outcome: 'expired' };
    default:
      return { outcome: 'failed', reason: 'invalid_key' };
  }
}

/**
 * The fields each payment method asks for on the page (INTERFACE.md §8).
 * `neverEchoed`: card data a payment page must never send back, not even to re-fill a refused form.
 */
export const methodFields: Record<
  string,
  Array<{
    name: string;
    label: string;
    autocomplete?: string;
    inputmode?: string;
    placeholder?: string;
    neverEchoed?: boolean;
  }>
> = {
  card: [
    { name: 'card_holder', label: 'Name on the card', autocomplete: 'cc-name' },
    {
      name: 'card_number',
      label: 'Card number',
      autocomplete: 'cc-number',
      inputmode: 'numeric',
      placeholder: '4111 1111 1111 1111',
      neverEchoed: true,
    },
    { name: 'card_expiry', label: 'Expiry (MM/YY)', autocomplete: 'cc-exp', placeholder: '12/29' },
    {
      name: 'card_cvv',
      label: 'Security code',
      autocomplete: 'cc-csc',
      inputmode: 'numeric',
      placeholder: '123',
      neverEchoed: true,
    },
  ],
  transfer: [
    { name: 'bank', label: 'Bank' },
    { name: 'account_number', label: 'Account number', inputmode: 'numeric' },
  ],
  mobile_payment: [
    { name: 'phone', label: 'Mobile phone number', autocomplete: 'tel', inputmode: 'tel' },
    { name: 'document_id', label: 'Document number' },
  ],
  wallet: [{ name: 'wallet_id', label: 'Wallet e-mail or id', autocomplete: 'email' }],
};

export const methodLabels: Record<string, string> = {
  card: 'Card',
  transfer: 'Bank transfer',
  mobile_payment: 'Mobile payment',
  wallet: 'Wallet',
};

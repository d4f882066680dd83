import type { TestServer } from '../testing/test-server.js';
import { registerAccount } from '../testing/test-server.js';

/** An account with a split agreement, a plain one, and two partners linked to the split one. */
export async function catalog(server: TestServer) {
  const account = await registerAccount(server.api);
  const token = account.key.token;
  const post = async (path: string, json: unknown) => {
    const response = await server.api.post(path, { json, token });
    if (response.status !== 201) throw new Error(`${path}: ${response.status} ${response.text}`);
    return response.body;
  };
  const split = await post('/api/v1/ext/agreements', {
    name: 'Marketplace',
    currency_reference: 'USD',
    split: true,
    payment_methods: ['card', 'wallet'],
  });
  const plain = await post('/api/v1/ext/agreements', {
    name: 'Shop',
    currency_reference: 'USD',
    split: false,
    payment_methods: ['transfer'],
  });
  const partnerA = await post('/api/v1/ext/partners', { name: 'Partner A', document_id: 'DOC-A' });
  const partnerB = await post('/api/v1/ext/partners', { name: 'Partner B', document_id: 'DOC-B' });
  await post('/api/v1/ext/split-agreements', { agreement_id: split.agreement_id, partner_id: partnerA.partner_id });
  await post('/api/v1/ext/split-agreements', { agreement_id: split.agreement_id, partner_id: partnerB.partner_id });
  const createSession = async (json: Record<string, unknown> = {}) =>
    post('/api/v1/ext/payment-sessions/buttons', { agreement_id: plain.agreement_id, amount_reference: 100, ...json });
  return { account, token, split, plain, partnerA, partnerB, post, createSession };
}

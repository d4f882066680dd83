import type { Account } from '../accounts/account.js';
import type { Store } from '../store/store.js';
import type { TraceEntry } from '../trace/trace.js';

interface Step {
  id: string;
  title: string;
  /** The first trace entry that completes this step. */
  when?: (entry: TraceEntry) => boolean;
}

// addendum §8: the integration checklist.
const steps: Step[] = [
  { id: 'registered', title: 'Registered an account' },
  { id: 'agreement_created', title: 'Created an agreement' },
  { id: 'session_created', title: 'Created a payment session', when: (e) => e.type === 'session.created' },
  { id: 'session_paid', title: 'Had a session paid', when: (e) => e.type === 'session.status_changed' && e.to === 'paid' },
  { id: 'webhook_delivered', title: 'Received a webhook with a 2xx answer', when: (e) => e.type === 'webhook.attempt' && isSuccess(e.status) },
  { id: 'accredited_delivered', title: 'Received the accredited event', when: (e) => e.type === 'webhook.attempt' && isSuccess(e.status) && e.event === 'payment_session.accredited' },
  { id: 'relay_connected', title: 'Connected a relay', when: (e) => e.type === 'relay.connected' },
  { id: 'failing_receiver_exercised', title: 'Exercised the failing receiver', when: (e) => e.type === 'webhook.received' && e.receiver === 'fail' },
];

function isSuccess(status: unknown): boolean {
  return typeof status === 'number' && status >= 200 && status < 300;
}

/** Each step done from what really happened: the account, its agreements and its trace. */
export async function progress(store: Store, account: Account) {
  const trace = await store.list<TraceEntry>('trace', { where: { account_id: account.account_id }, orderBy: { field: 'order', direction: 'asc' } });
  const [firstAgreement] = await store.list<{ created_at: string }>('agreements', { where: { account_id: account.account_id }, orderBy: { field: 'created_at', direction: 'asc' }, limit: 1 });
  const doneAt = (step: Step): string | undefined => {
    if (step.id === 'registered') return account.created_at;
    if (step.id === 'agreement_created') return firstAgreement?.created_at;
    return trace.find((entry) => step.when!(entry))?.at;
  };
  const answered = steps.map((step) => {
    const at = doneAt(step);
    return { id: step.id, title: step.title, done: at !== undefined, ...(at !== undefined ? { at } : {}) };
  });
  return { steps: answered, done: answered.filter((s) => s.done).length, total: answered.length };
}

import type { Account } from '../accounts/account.js';
import type { Store } from '../store/store.js';

interface Step {
  id: string;
  title: string;
  /**
   * The trace entries that complete this step, as a query one declared
   * index of the trace answers (trace.ts): the first of them, in written
   * order, is looked up alone, so the checklist costs the same however long
   * the trace grows.
   */
  when?: Record<string, string>;
}

// INTERFACE.md §8: the integration checklist.
const steps: Step[] = [
  { id: 'registered', title: 'Registered an account' },
  { id: 'agreement_created', title: 'Created an agreement' },
  { id: 'session_created', title: 'Created a payment session', when: { type: 'session.created' } },
  { id: 'session_paid', title: 'Had a session paid', when: { type: 'session.status_changed', to: 'paid' } },
  {
    id: 'webhook_delivered',
    title: 'Received a webhook with a 2xx answer',
    when: { type: 'webhook.attempt', result: 'succeeded' },
  },
  {
    id: 'accredited_delivered',
    title: 'Received the accredited event',
    when: { type: 'webhook.attempt', event: 'payment_session.accredited', result: 'succeeded' },
  },
  { id: 'relay_connected', title: 'Connected a relay', when: { type: 'relay.connected' } },
  {
    id: 'failing_receiver_exercised',
    title: 'Exercised the failing receiver',
    when: { type: 'webhook.received', receiver: 'fail' },
  },
];

/** Each step done from what really happened: the account, its agreements, and the first trace entry that completes it. */
export async function progress(store: Store, account: Account) {
  const first = async (collection: string, where: Record<string, string>, field: string) =>
    (
      await store.list<Record<string, unknown>>(collection, {
        where: { account_id: account.account_id, ...where },
        orderBy: { field, direction: 'asc' },
        limit: 1,
      })
    )[0];
  const doneAt = async (step: Step): Promise<string | undefined> => {
    if (step.id === 'registered') return account.created_at;
    if (step.id === 'agreement_created')
      return (await first('agreements', {}, 'created_at'))?.created_at as string | undefined;
    return (await first('trace', step.when!, 'order'))?.at as string | undefined;
  };
  const answered = await Promise.all(
    steps.map(async (step) => {
      const at = await doneAt(step);
      return { id: step.id, title: step.title, done: at !== undefined, ...(at !== undefined ? { at } : {}) };
    }),
  );
  return { steps: answered, done: answered.filter((s) => s.done).length, total: answered.length };
}

import type { Mutation } from './mutating-proxy.js';
import { posMutations } from './mutations/pos.js';
import { sessionMutations } from './mutations/sessions.js';
import { surfaceMutations } from './mutations/surfaces.js';
import { webhookMutations } from './mutations/webhooks.js';

export { conformingVariant, openChoicesVariant } from './mutations/variants.js';

// Rules of the interface broken one at a time, as another implementation
// could break them, each with the check that must catch it. Every area of
// the suite is covered: orders, settlements, tokens and signatures,
// isolation, sessions, the payment page, stops, webhooks, the served
// document. Signed requests are never rewritten (that would only break
// their signature); their answers are.

export const mutations: Mutation[] = [...posMutations, ...sessionMutations, ...webhookMutations, ...surfaceMutations];

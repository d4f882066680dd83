import { oursResponse } from '../helpers.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import { ref, responseRef, type PathItems } from '../components.js';

const page = (description: string): OpenAPIV3_1.ResponseObject => ({
  description,
  content: { 'text/html': { schema: { type: 'string' } } },
});
const pageOrError = (description: string): OpenAPIV3_1.ResponseObject => ({
  description: `${description} An HTML page for a form post; the error body for a JSON request.`,
  content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ref('Error') } },
});
const sessionId: OpenAPIV3_1.ParameterObject = {
  name: 'session_id',
  in: 'path',
  required: true,
  schema: { type: 'string', maxLength: 64 },
};

export const payPaths: PathItems = {
  // Before /pay/{session_id}: routes match in the document's order, and a session id never has a dot.
  '/pay/app.js': {
    get: {
      operationId: 'getPaymentScript',
      'x-ours': true, // the payment page's script (profiles.ts)
      summary: "The payment page's script",
      description:
        "One ES module, loaded by the payment page and its status page: the method switch, the countdown, local times, following leg 2. The pages' Content-Security-Policy allows scripts from this origin only; without the script the page still pays.",
      tags: ['simulator'],
      security: [],
      responses: {
        '200': { description: 'The script.', content: { 'text/javascript': { schema: { type: 'string' } } } },
      },
    },
  },
  '/pay/{session_id}': {
    get: {
      operationId: 'showPaymentPage',
      summary: 'The payment page of a session',
      description:
        "HTML: the amount, only the agreement's payment methods with the fields each needs, a countdown to the due date, the payment-key input and the choice of how leg 2 ends.",
      tags: ['simulator'],
      security: [],
      parameters: [sessionId],
      responses: {
        '200': page('The page (or, when the session is no longer pending, its status).'),
        '400': responseRef('BadRequest'),
        '404': oursResponse(page('No such session.')),
      }, // an HTML page is ours (profiles.ts)
    },
    post: {
      operationId: 'payPaymentPage',
      summary: 'Pay through the page with a magic key',
      description:
        'Keys: 000000 pays (leg 2 is scheduled after SIM_ACCREDITATION_DELAY_MS to end as `leg2` says); 111111 fails (insufficient_funds); 222222 fails (rejected_by_issuer); 333333 expires the session; any other key fails (invalid_key). ' +
        'Form-encoded posts get an HTML page; JSON requests a JSON answer.',
      tags: ['simulator'],
      security: [],
      parameters: [sessionId],
      requestBody: {
        required: false,
        content: {
          'application/x-www-form-urlencoded': { schema: ref('PayRequest') },
          'application/json': { schema: ref('PayRequest') },
        },
      },
      responses: {
        '200': {
          description: 'The outcome.',
          content: { 'text/html': { schema: { type: 'string' } }, 'application/json': { schema: ref('PayResult') } },
        },
        '400': pageOrError('A method the agreement does not offer, a missing field or key.'),
        '404': pageOrError('No such session.'),
        '409': pageOrError('SESSION_NOT_PAYABLE: the session is no longer pending.'),
        '413': responseRef('PayloadTooLarge'),
        '415': responseRef('UnsupportedMediaType'),
      },
    },
  },
};

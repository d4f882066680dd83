import type { Config } from '../config.js';
import { escapeHtml, pageShell } from '../system/page-shell.js';

// GET /fidelidad: every difference between the simulator and production
// that the interface names, and those this simulator adds (INTERFACE.md §8),
// with the values this server runs with.

type Settings = Pick<Config, 'accreditationDelayMs' | 'webhookLadder' | 'loginTokenTtlSeconds' | 'dataTtlDays'>;

export interface Difference {
  id: string;
  topic: string;
  production: string;
  simulator: string;
}

export const fidelidad = (config: Settings): Difference[] => [
  {
    id: 'accreditation-delay',
    topic: 'Accreditation (leg 2) timing',
    production: 'Real accreditation takes one to two minutes.',
    simulator: `After SIM_ACCREDITATION_DELAY_MS (${config.accreditationDelayMs} ms on this server; 5000 ms by default) when paid through the payment page; forcing paid through the control plane schedules nothing.`,
  },
  {
    id: 'retry-ladder',
    topic: 'Webhook retries',
    production:
      'Retries after 1, 5, 15 and 60 minutes, at most 4 attempts (another part of the interface says 3), then marked undelivered.',
    simulator: `WEBHOOK_LADDER=sim (default): attempts at 0, 2000 and 5000 ms, each with a 5000 ms timeout, then given up and traced. WEBHOOK_LADDER=production follows the production ladder. This server runs WEBHOOK_LADDER=${config.webhookLadder}.`,
  },
  {
    id: 'past-due-date',
    topic: 'Due dates in the past',
    production: 'The production sandbox answers 400 "Due date must be in the future".',
    simulator:
      'Accepted; an expire session reads as expired on the first status read, a keep_active one stays pending.',
  },
  {
    id: 'emitted-events',
    topic: 'Events emitted',
    production:
      'Two lists of the interface name payment_session.created, paid, payment_completed, partially_accredited, accredited, accreditations_completed, accreditation_to_recipient_completed, accreditation_to_recipient_failed and failed_credit.',
    simulator:
      'Exactly four: payment_session.created, payment_session.paid, payment_session.accredited and payment_session.accreditation_to_recipient_failed.',
  },
  {
    id: 'request-batch-continue-on-error',
    topic: 'Request batch',
    production: 'Batches honour continue_on_error.',
    simulator:
      'The Request batch ignores continue_on_error: it is all or nothing (one invalid item answers 400 or 404 and creates nothing). Stops batches honour it (207).',
  },
  {
    id: 'status-422',
    topic: 'HTTP 422',
    production: 'The contract declares 422 on twelve operations.',
    simulator: 'Produced on one: expiring a paid session (SESSION_ALREADY_PAID).',
  },
  {
    id: 'stops-mocks',
    topic: 'Stops update, history and multiple query',
    production: 'Declared but not operational on the real platform.',
    simulator: 'Answer 200 with fixed invented data identical for every account and the header x-svc-sim: mock.',
  },
  {
    id: 'refresh-token',
    topic: 'POST /api/svcpagos/refresh-token',
    production: 'Exists, though the formal contract does not declare it.',
    simulator:
      'Implemented like login without rotating the console token, marked x-svc-sim: fuera-de-contrato; the previous refresh token stays valid.',
  },
  {
    id: 'token-lifetime',
    topic: 'Token lifetimes',
    production: 'Lifetimes of production and refresh tokens are not published.',
    simulator: `The API token never expires; the login token expires after expires_in (${config.loginTokenTtlSeconds} s on this server) on the account's clock; refresh tokens never expire.`,
  },
  {
    id: 'idempotency-keys',
    topic: 'Idempotency of API calls',
    production: 'Not specified for API calls.',
    simulator:
      'No idempotency key is read on API calls: repeating a call creates another object and never answers a conflict.',
  },
  {
    id: 'rate-brake',
    topic: 'Rate limits',
    production: 'Production rate limits are not published; whether it sends X-RateLimit-* headers is unresolved.',
    simulator:
      "Off by default; PUT /console/rate-limit sets a per-minute limit for the account's API only, with X-RateLimit-* headers and 429 RATE_LIMITED with Retry-After.",
  },
  {
    id: 'commission',
    topic: 'Commission in receiver_credits_summary',
    production: 'Set by the bank per commercial agreement.',
    simulator: '1 % of each credit, rounded half-up to the cent.',
  },
  {
    id: 'data-lifetime',
    topic: 'Test data lifetime',
    production: 'Not applicable.',
    simulator: `Data older than SIM_DATA_TTL_DAYS (${config.dataTtlDays} days on this server; 14 by default) on the account's clock is purged.`,
  },
  {
    id: 'money',
    topic: 'Money',
    production: 'Moves real money through banks.',
    simulator:
      'Moves no money and contacts no bank; payment outcomes come from magic keys on the payment page or from the control plane.',
  },
  {
    id: 'split-false-distribution',
    topic: 'split.distribution on a split: false agreement',
    production: 'Answered 200 in the production sandbox; each receiver is validated.',
    simulator: 'The same: accepted, each partner_id still checked.',
  },
  {
    id: 'account-clock',
    topic: 'Time',
    production: 'Real time.',
    simulator:
      'Each account has its own clock that POST /control/clock/advance moves forward: due dates, scheduled accreditations, webhook retries and token expiry follow it.',
  },
  {
    id: 'webhook-routing',
    topic: 'Webhook delivery to local addresses',
    production: 'Delivers over the internet only.',
    simulator:
      "Local, private and unparseable webhook_urls go through the WebSocket relay (svc-relay); the account's own default receivers are delivered in process.",
  },
  {
    id: 'relay-resume',
    topic: 'Deliveries a relay missed',
    production: 'No relay: a delivery whose retries all fail is given up.',
    simulator:
      'The same ladder and the same give-up record; on top, a relay client that comes back (svc-relay keeps a cursor) gets every delivery routed to the relay that ended without a 2xx, again, in order, with its idempotency-key and a fresh svc-timestamp and signature, marked resumed in the trace.',
  },
];

/** The same list as a page, for a browser. */
export function fidelidadPage(version: string, differences: readonly Difference[]): string {
  const rows = differences
    .map(
      (d) =>
        `<tr id="${escapeHtml(d.id)}"><th scope="row">${escapeHtml(d.topic)}</th><td>${escapeHtml(d.production)}</td><td>${escapeHtml(d.simulator)}</td></tr>`,
    )
    .join('\n');
  return pageShell(
    'Fidelidad: the simulator against production',
    `<h1>Fidelidad <span class="muted">${escapeHtml(version)}</span></h1>
<p>Every known difference between this simulator and production, with the values this server runs with. As JSON: <code>Accept: application/json</code>.</p>
<table>
<thead><tr><th scope="col">Topic</th><th scope="col">Production</th><th scope="col">This simulator</th></tr></thead>
<tbody>
${rows}
</tbody>
</table>`,
  );
}

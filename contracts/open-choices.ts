// What the interface (the vendor's document, and INTERFACE.md) leaves open, found by reviewing
// every check and every schema assertion of the contract suite against
// them (issue 27). For each: what is left open, and how each profile
// treats it. `interface` accepts every choice; `strict` keeps ours. The
// checks name the choices they meet (`--list-checks` shows them).

export interface OpenChoice {
  id: string;
  /** What the documents leave open, and why it is open. */
  open: string;
  /** What `interface` accepts. */
  interface: string;
  /** What `strict` holds a deployment to: this implementation's choice. */
  ours: string;
}

export const openChoices: OpenChoice[] = [
  {
    id: 'success-status',
    open: "the success status of operations whose answer the documents do not give: resend (POST /console/webhooks/{event_id}/resend), force an outcome, advance the clock, reorder stops, delete a stop, set the rate brake, and the payment page's form post",
    interface: "any 2xx, with any body or none (and a 3xx from the payment page's form)",
    ours: '200 with our body (204 for delete a stop)',
  },
  {
    id: 'not-found-or-invalid-first',
    open: 'which answer wins when one request both names an id that does not exist (404) and carries a malformed, incomplete or oversized body (400, 413), or an id longer than any id can be (400)',
    interface: "404 NOT_FOUND or the body's answer",
    ours: "the body's answer (400 or 413): the body is read and validated before any lookup",
  },
  {
    id: 'trace-time-basis',
    open: "the clock trace entries are stamped on: INTERFACE.md fixes that retries follow the account's clock, not that the trace does",
    interface:
      'the ladder judged by what can be seen whatever the stamps: no retry while the account clock is short of the step, a retry once it has passed it (and identical bytes, three attempts, then given up)',
    ours: 'the same observation, and the trace stamped on the account clock',
  },
  {
    id: 'operation-ids',
    open: 'whether the served OpenAPI document names every operation with an operationId (OpenAPI makes it optional)',
    interface: 'operations matched by method and path; operationId optional',
    ours: 'the document equal to ours, operationIds included',
  },
  {
    id: 'past-due-date',
    open: 'a session created with a due date already past: the production sandbox refuses it, INTERFACE.md does not say',
    interface: '201 (then expired or pending on its first read, by its behaviour) or 400 VALIDATION_FAILED',
    ours: '201, expired on the first read (or pending with keep_active)',
  },
  {
    id: 'unknown-status-filter',
    open: 'an order list filtered by a status that is not one of the five: the bounds rule (INTERFACE.md §0) names size, page, limit and per_minute, not the filter',
    interface: '400 VALIDATION_FAILED, or 200 listing no order of another status',
    ours: '400 VALIDATION_FAILED',
  },
  {
    id: 'zero-clock-advance',
    open: 'advancing the account clock by 0 ms: INTERFACE.md says the clock moves forward, not whether a zero step is refused',
    interface: '400 VALIDATION_FAILED or a 2xx that leaves the clock where it was',
    ours: '400 VALIDATION_FAILED (a step is at least 1 ms)',
  },
  {
    id: 'other-currency',
    open: "a session in another currency than its agreement's (found by the last review)",
    interface: 'not probed',
    ours: '400 VALIDATION_FAILED',
  },
  {
    id: 'our-bounds-and-media',
    open: "a body of another media type, an unknown field in a body, and the bounds this document sets beyond INTERFACE.md's (found by the last review)",
    interface: 'not probed',
    ours: '415 UNSUPPORTED_MEDIA_TYPE, and 400 VALIDATION_FAILED for unknown fields and out-of-range values',
  },
  {
    id: 'rate-headers-brake-off',
    open: 'the X-RateLimit-* headers while the brake is off (found by the last review)',
    interface: 'present or absent',
    ours: 'absent',
  },
  {
    id: 'answer-bodies',
    open: 'the body of an expire, a resend, a reset and the default receivers beside their status, and the fields of a resource beyond those the documents name (found by the last review)',
    interface: 'any body; extra fields allowed; ids opaque strings',
    ours: 'our bodies, closed objects, our id formats',
  },
];

export const openChoice = (id: string): OpenChoice => {
  const choice = openChoices.find((each) => each.id === id);
  if (!choice) throw new Error(`no open choice ${id}`);
  return choice;
};

/** Operations whose success status the documents leave open (`success-status`). */
export const OPEN_SUCCESS_OPERATIONS = new Set([
  'resendWebhook',
  'forceSessionOutcome',
  'forceSessionOutcomeViaTestAlias',
  'advanceControlClock',
  'advanceControlClockViaTestAlias',
  'reorderStops',
  'deleteStop',
  'setRateLimit',
  'payPaymentPage',
]);

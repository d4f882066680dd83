// Written by contracts/types/write-types.ts from the OpenAPI document; do not edit.
// Schemas: every component schema. Operations: what each operation's handler
// receives once the request is validated (coerced query included), and the
// security scheme that admitted it.

export interface Schemas {
  "TerminalCreateRequest": {
    serialNumber: string;
    label?: string;
  };
  "TerminalSecret": {
    serialNumber: string;
    secret: string;
    createdAt: string;
  };
  "Terminal": {
    serialNumber: string;
    label: string | null;
    createdAt: string;
    secretRotatedAt: string | null;
  };
  "TerminalList": {
    data: Array<Schemas["Terminal"]>;
  };
  "OrderCreateRequest": {
    orderId?: string;
    terminal: string;
    amount: number;
    currency: string;
    description?: string;
  };
  "OrderHistoryEntry": {
    from: "PENDING" | "PAID" | "DISCARDED" | "VOID_PENDING" | "VOIDED";
    to: "PENDING" | "PAID" | "DISCARDED" | "VOID_PENDING" | "VOIDED";
    trigger: "invalidation" | "commit" | "invalidation/commit";
    actor: "merchant" | "pos";
    at: string;
    overridesDiscard?: true;
    reason?: string;
  };
  "Order": {
    orderId: string;
    merchantId: string;
    terminal: string;
    amount: number;
    currency: string;
    status: "PENDING" | "PAID" | "DISCARDED" | "VOID_PENDING" | "VOIDED";
    authorizationCode?: string;
    paidAt?: string;
    description?: string;
    createdAt: string;
    updatedAt: string;
    history: Array<Schemas["OrderHistoryEntry"]>;
  };
  "OrderEnvelope": {
    title: string;
    detail?: string;
    data: Schemas["Order"];
  };
  "OrderListEnvelope": {
    title: string;
    detail?: string;
    data: Array<Schemas["Order"]>;
  };
  "InvalidationRequest": {
    reason?: string;
  };
  "CommitRequest": {
    authorizationCode: string;
    paidAt: string;
    amount?: number;
  };
  "Settlement": {
    batchNumber: string;
    transactionCount: number;
    closedAt: string;
    currencyReference: string;
    terminal: string;
    debitBatch: string;
  };
  "SettlementEnvelope": {
    title: string;
    detail?: string;
    data: Schemas["Settlement"];
  };
  "SettlementListEnvelope": {
    title: string;
    detail?: string;
    data: Array<Schemas["Settlement"]>;
  };
  "AgreementCreateRequest": {
    name: string;
    currency_reference: string;
    split: boolean;
    payment_methods: Array<"card" | "transfer" | "mobile_payment" | "wallet">;
  };
  "Agreement": {
    agreement_id: string;
    name: string;
    currency_reference: string;
    split: boolean;
    payment_methods: Array<"card" | "transfer" | "mobile_payment" | "wallet">;
    created_at: string;
  };
  "PartnerCreateRequest": {
    name: string;
    document_id: string;
  };
  "Partner": {
    partner_id: string;
    name: string;
    document_id: string;
    created_at: string;
  };
  "SplitAgreementCreateRequest": {
    agreement_id: string;
    partner_id: string;
  };
  "SplitAgreement": {
    split_agreement_id: string;
    agreement_id: string;
    partner_id: string;
    created_at: string;
  };
  "SessionCreateRequest": {
    agreement_id: string;
    amount_reference: number;
    currency_reference?: string;
    due_date_session?: string;
    due_date_reached_behavior?: "expire" | "keep_active";
    webhook_url?: string;
    description?: string;
    split?: {
      distribution: Array<{
        partner_id: string;
        amount_reference: number;
      }>;
    };
  };
  "ReceiverCredit": {
    receiver_id: string;
    receiver_type: "owner" | "partner";
    gross_amount: number;
    commission: number;
    net_amount: number;
    status: "credited" | "failed";
  };
  "ReceiverCreditsSummary": {
    gross_amount: number;
    commissions: number;
    net_amount: number;
    total_credits: number;
  };
  "SessionPayment": {
    id: string;
    origin: "button" | "request" | "stop";
    amount_reference: number;
    receiver_credits?: Array<Schemas["ReceiverCredit"]>;
    receiver_credits_summary?: Schemas["ReceiverCreditsSummary"];
  };
  "PaymentSession": {
    session_id: string;
    status: "pending" | "paid" | "failed" | "expired";
    agreement_id: string;
    amount_reference: number;
    currency_reference: string;
    due_date_session: string | null;
    due_date_reached_behavior: "expire" | "keep_active";
    webhook_url: string | null;
    pay_url: string;
    created_at: string;
    accreditation: {
      status: "none" | "scheduled" | "accredited" | "failed";
      scheduled_for?: string;
    };
    session_payment: Schemas["SessionPayment"];
    description: string | null;
    failure_reason?: string;
  };
  "RequestBatchCreateRequest": {
    sessions: Array<Schemas["SessionCreateRequest"]>;
    continue_on_error?: boolean;
  };
  "RequestBatch": {
    batch_id: string;
    sessions: Array<Schemas["PaymentSession"]>;
  };
  "StopCreateRequest": {
    name: string;
    address?: string;
    position?: number;
  };
  "Stop": {
    stop_id: string;
    name: string;
    address: string | null;
    position: number;
    session_ids: Array<string>;
    created_at: string;
  };
  "StopList": {
    data: Array<Schemas["Stop"]>;
  };
  "StopSessionsRequest": {
    sessions: Array<{
      [key: string]: unknown;
    }>;
    continue_on_error?: boolean;
  };
  "StopSessionsResult": {
    results: Array<{
      index: number;
      status: number;
      session?: Schemas["PaymentSession"];
      error?: Schemas["Error"];
    }>;
  };
  "StopReorderRequest": {
    stop_ids: Array<string>;
  };
  "MockStop": {
    stop_id: string;
    name: string;
    address: string;
    position: number;
    status: string;
  };
  "MockStopHistory": {
    stop_id: string;
    history: Array<{
      at: string;
      event: string;
    }>;
  };
  "MockStopQuery": {
    data: Array<Schemas["MockStop"]>;
  };
  "AnyObject": {
    [key: string]: unknown;
  };
  "OutcomeRequest": {
    leg: 1 | 2;
    outcome: "paid" | "failed" | "expired" | "accredited" | "accreditation_failed";
  };
  "ResetResult": {
    status: "reset";
    deleted: number;
  };
  "SessionCreatedEvent": {
    event: "payment_session.created";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
    };
  };
  "SessionPaidEvent": {
    event: "payment_session.paid";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
    };
  };
  "SessionAccreditedEvent": {
    event: "payment_session.accredited";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
      receiver_credits: Array<Schemas["ReceiverCredit"]>;
      receiver_credits_summary: Schemas["ReceiverCreditsSummary"];
    };
  };
  "AccreditationToRecipientFailedEvent": {
    event: "payment_session.accreditation_to_recipient_failed";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
      receiver_id: string;
    };
  };
  "PaymentCompletedEvent": {
    event: "payment_session.payment_completed";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
    };
  };
  "PartiallyAccreditedEvent": {
    event: "payment_session.partially_accredited";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
      receiver_id?: string;
    };
  };
  "AccreditationsCompletedEvent": {
    event: "payment_session.accreditations_completed";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
    };
  };
  "AccreditationToRecipientCompletedEvent": {
    event: "payment_session.accreditation_to_recipient_completed";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
      receiver_id?: string;
    };
  };
  "FailedCreditEvent": {
    event: "payment_session.failed_credit";
    event_id: string;
    created_at: string;
    data: {
      session_id: string;
      status: "pending" | "paid" | "failed" | "expired";
      session_payment: {
        id: string;
        origin: "button" | "request" | "stop";
        amount_reference: number;
      };
      receiver_id?: string;
    };
  };
  "AttemptOutcome": {
    event_id: string;
    attempt: number;
    routing: "loopback" | "relay" | "direct" | "none";
    url?: string | null;
    status?: number;
    response_body?: string;
    error?: string;
    duration_ms: number;
  };
  "Received": {
    received: true;
  };
  "ScenarioRun": {
    run_id: string;
    scenario: string;
    status: "running" | "passed" | "failed";
    started_at: string;
    ended_at?: string;
    steps: Array<{
      name: string;
      request: string;
      status: number;
      problems: Array<string>;
      answer?: string;
      at: number;
      ms: number;
      given?: boolean;
    }>;
    link: string;
    order?: {
      order_id: string;
      status: string;
      taken_first: "merchant" | "pos" | "neither";
    };
  };
  "TraceEntry": {
    id: string;
    type: string;
    at: string;
    session_id?: string;
    event_id?: string;
    [key: string]: unknown;
  };
  "TraceList": {
    data: Array<Schemas["TraceEntry"]>;
    cursor: string;
  };
  "SessionList": {
    data: Array<Schemas["PaymentSession"]>;
  };
  "ConsoleSession": {
    session: Schemas["PaymentSession"];
    admissible_outcomes: Array<{
      leg: 1 | 2;
      outcome: "paid" | "failed" | "expired" | "accredited" | "accreditation_failed";
    }>;
  };
  "Progress": {
    steps: Array<{
      id: string;
      title: string;
      done: boolean;
      at?: string;
    }>;
    done: number;
    total: number;
  };
  "RateLimitRequest": {
    per_minute: number | null;
  };
  "RateLimit": {
    per_minute: number | null;
  };
  "PayRequest": {
    method?: "card" | "transfer" | "mobile_payment" | "wallet";
    payment_key?: string;
    leg2?: "accredited" | "accreditation_failed";
    [key: string]: string | "card" | "transfer" | "mobile_payment" | "wallet" | "accredited" | "accreditation_failed" | undefined;
  };
  "PayResult": {
    session_id: string;
    status: "pending" | "paid" | "failed" | "expired";
    outcome: "paid" | "failed" | "expired";
    reason?: "insufficient_funds" | "rejected_by_issuer" | "invalid_key";
    accreditation: "none" | "scheduled" | "accredited" | "failed";
  };
  "Fidelidad": {
    version: string;
    differences: Array<{
      id: string;
      topic: string;
      production: string;
      simulator: string;
    }>;
  };
  "Error": {
    message: string;
    code: string;
    details?: Array<Schemas["ErrorDetail"]>;
    currentStatus?: string;
  };
  "ErrorDetail": {
    in: "body" | "path" | "query" | "header";
    pointer: string;
    message: string;
  };
  "Health": {
    status: "ok" | "store_unavailable";
    store: string;
    uptime_s: number;
    version: string;
    reason?: string;
  };
  "RegisterRequest": {
    email: string;
    password: string;
    short_name?: string;
  };
  "Hooks": {
    paid: string;
    accredited: string;
    fail: string;
    captura: string;
  };
  "ApiKey": {
    token: string;
    webhook_secret: string;
  };
  "Registration": {
    account_id: string;
    merchant_id: string;
    key: Schemas["ApiKey"];
    console_token: string;
    hooks: Schemas["Hooks"];
  };
  "LegacyRegistration": {
    account_id: string;
    merchant_id: string;
    key: Schemas["ApiKey"];
    hooks: Schemas["Hooks"];
  };
  "LoginRequest": {
    email?: string;
    short_name?: string;
    password: string;
  } & (unknown);
  "RefreshRequest": {
    refreshToken: string;
  };
  "AccountClock": {
    now: string;
    offset_ms: number;
  };
  "NextDue": {
    next: null | {
      at: string;
      kind: "webhook_attempt" | "accreditation";
      session_id: string;
      event_id?: string;
      in_ms: number;
    };
  };
  "RelayDeliveryRequest": {
    headers: {
      [key: string]: string;
    };
    body: string;
  };
  "RelayDeliveryResult": {
    status: number | null;
    error: string | null;
    duration_ms: number;
  };
  "ClockAdvanceRequest": {
    ms: number;
  };
  "ConsoleKeys": {
    account_id?: string;
    merchant_id?: string;
    keys: Array<{
      token: string;
      webhook_secret: string;
      created_at: string;
    }>;
    hooks: Schemas["Hooks"];
  };
  "Session": {
    token: string;
    refreshToken: string;
    expires_in: number;
    console_token: string;
  };
}

export interface Operations {
  showHome: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  getFavicon: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  getHealth: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  getOpenApiDocument: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  registerAccount: {
    body: Schemas["RegisterRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  registerAccountLegacy: {
    body: Schemas["RegisterRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  login: {
    body: Schemas["LoginRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  refreshToken: {
    body: Schemas["RefreshRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  getConsoleKeys: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "consoleBearer";
  };
  getConsoleRelay: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "consoleBearer";
  };
  getControlClock: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  getNextDue: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  advanceControlClock: {
    body: Schemas["ClockAdvanceRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  sendThroughRelay: {
    body: Schemas["RelayDeliveryRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  forceSessionOutcome: {
    body: Schemas["OutcomeRequest"];
    params: {
      "session_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  resetAccount: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  listTerminals: {
    body: undefined;
    params: {
      "merchantId": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  provisionTerminal: {
    body: Schemas["TerminalCreateRequest"];
    params: {
      "merchantId": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  rotateTerminalSecret: {
    body: undefined;
    params: {
      "merchantId": string;
      "serialNumber": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  listMerchantOrders: {
    body: undefined;
    params: {
      "merchantId": string;
    };
    query: {
      "status"?: "PENDING" | "PAID" | "DISCARDED" | "VOID_PENDING" | "VOIDED";
      "size"?: number;
      "page"?: number;
    };
    security: "apiBearer";
  };
  createOrder: {
    body: Schemas["OrderCreateRequest"];
    params: {
      "merchantId": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  getOrder: {
    body: undefined;
    params: {
      "merchantId": string;
      "orderId": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  invalidateOrder: {
    body: Schemas["InvalidationRequest"] | undefined;
    params: {
      "merchantId": string;
      "orderId": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  listTerminalOrders: {
    body: undefined;
    params: {
      "serialNumber": string;
    };
    query: {
      "status"?: "PENDING" | "PAID" | "DISCARDED" | "VOID_PENDING" | "VOIDED";
      "size"?: number;
      "page"?: number;
    };
    security: "posSignature";
  };
  commitOrderPayment: {
    body: Schemas["CommitRequest"];
    params: {
      "serialNumber": string;
      "orderId": string;
    };
    query: Record<string, never>;
    security: "posSignature";
  };
  commitOrderVoid: {
    body: undefined;
    params: {
      "serialNumber": string;
      "orderId": string;
    };
    query: Record<string, never>;
    security: "posSignature";
  };
  notifySettlement: {
    body: Schemas["Settlement"];
    params: {
      "serialNumber": string;
    };
    query: Record<string, never>;
    security: "posSignature";
  };
  listSettlements: {
    body: undefined;
    params: {
      "merchantId": string;
      "serialNumber": string;
    };
    query: {
      "sort"?: "batchNumber" | "-batchNumber" | "transactionCount" | "-transactionCount" | "closedAt" | "-closedAt" | "currencyReference" | "-currencyReference" | "terminal" | "-terminal" | "debitBatch" | "-debitBatch";
      "size"?: number;
      "page"?: number;
      "from"?: string;
      "to"?: string;
    };
    security: "apiBearer";
  };
  createAgreement: {
    body: Schemas["AgreementCreateRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  createPartner: {
    body: Schemas["PartnerCreateRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  createSplitAgreement: {
    body: Schemas["SplitAgreementCreateRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  createButtonSession: {
    body: Schemas["SessionCreateRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  createRequestBatch: {
    body: Schemas["RequestBatchCreateRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  getRequestBatch: {
    body: undefined;
    params: {
      "batch_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  getPaymentSession: {
    body: undefined;
    params: {
      "session_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  expirePaymentSession: {
    body: undefined;
    params: {
      "session_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  listStops: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  createStop: {
    body: Schemas["StopCreateRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  reorderStops: {
    body: Schemas["StopReorderRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  queryStopsMock: {
    body: Schemas["AnyObject"] | undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "apiBearer";
  };
  getStop: {
    body: undefined;
    params: {
      "stop_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  updateStopMock: {
    body: Schemas["AnyObject"] | undefined;
    params: {
      "stop_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  deleteStop: {
    body: undefined;
    params: {
      "stop_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  getStopHistoryMock: {
    body: undefined;
    params: {
      "stop_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  addStopSessions: {
    body: Schemas["StopSessionsRequest"];
    params: {
      "stop_id": string;
    };
    query: Record<string, never>;
    security: "apiBearer";
  };
  receiveWebhook: {
    body: unknown | undefined;
    params: {
      "account_id": string;
    };
    query: Record<string, never>;
    security: 'none';
  };
  resendWebhook: {
    body: {
      url?: string;
    } | undefined;
    params: {
      "event_id": string;
    };
    query: Record<string, never>;
    security: "consoleBearer";
  };
  listFailedWebhooks: {
    body: undefined;
    params: Record<string, never>;
    query: {
      "session_id"?: string;
    };
    security: "consoleBearer";
  };
  resendFailedWebhooks: {
    body: {
      session_id?: string;
    } | undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "consoleBearer";
  };
  openRelay: {
    body: undefined;
    params: Record<string, never>;
    query: {
      "cursor"?: string;
      "backfill_ms"?: string;
    };
    security: 'none';
  };
  showConsole: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  getConsoleTrace: {
    body: undefined;
    params: Record<string, never>;
    query: {
      "type"?: string;
      "session_id"?: string;
      "result"?: "succeeded" | "failed";
      "limit"?: number;
      "after"?: string;
    };
    security: "consoleBearer";
  };
  streamConsoleTrace: {
    body: undefined;
    params: Record<string, never>;
    query: {
      "type"?: string;
      "session_id"?: string;
      "after"?: string;
      "max_seconds"?: number;
    };
    security: "consoleBearer";
  };
  getConsoleSessions: {
    body: undefined;
    params: Record<string, never>;
    query: {
      "status"?: "pending" | "paid" | "failed" | "expired";
      "accreditation"?: "none" | "scheduled" | "accredited" | "failed";
      "id_prefix"?: string;
      "limit"?: number;
      "page"?: number;
    };
    security: "consoleBearer";
  };
  getConsoleSession: {
    body: undefined;
    params: {
      "session_id": string;
    };
    query: Record<string, never>;
    security: "consoleBearer";
  };
  getConsoleScript: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  getConsoleProgress: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "consoleBearer";
  };
  setRateLimit: {
    body: Schemas["RateLimitRequest"];
    params: Record<string, never>;
    query: Record<string, never>;
    security: "consoleBearer";
  };
  getFidelidad: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  listConsoleScenarios: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: "consoleBearer";
  };
  startConsoleScenarioRun: {
    body: undefined;
    params: {
      "name": string;
    };
    query: Record<string, never>;
    security: "consoleBearer";
  };
  getConsoleScenarioRun: {
    body: undefined;
    params: {
      "run_id": string;
    };
    query: Record<string, never>;
    security: "consoleBearer";
  };
  getPaymentScript: {
    body: undefined;
    params: Record<string, never>;
    query: Record<string, never>;
    security: 'none';
  };
  showPaymentPage: {
    body: undefined;
    params: {
      "session_id": string;
    };
    query: Record<string, never>;
    security: 'none';
  };
  payPaymentPage: {
    body: Schemas["PayRequest"] | undefined;
    params: {
      "session_id": string;
    };
    query: Record<string, never>;
    security: 'none';
  };
}

/** One delivery attempt's request, already signed. */
export interface WebhookRequest {
  account_id: string;
  event_id: string;
  url: string;
  headers: Record<string, string>;
  /** The exact signed bytes. */
  body: string;
  /** Aborts the attempt (the 5 s limit). */
  signal: AbortSignal;
  /** An attempt the relay makes again for a client that missed it (relay-resume.ts): the relay says so. */
  resumed?: boolean;
}

/** The receiver's status and the start of its answer (answer-excerpt.ts), or why there was none. */
export type AttemptResult = { status: number; body?: string } | { error: string };

/** Delivers one attempt; answers the receiver's status or why there was none. Never throws. */
export interface WebhookTransport {
  send(request: WebhookRequest): Promise<AttemptResult>;
}

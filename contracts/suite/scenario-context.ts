// What the suite's scenarios work with: the context a run gives them, and the
// world they build through the API for the checks after them.
import { PosClient } from '../clients/pos-client.js';
import type { Profile } from '../profiles.js';
import type { Expectations } from './expectations.js';
import type { Recorder } from './recorder.js';
import { type RequestLimits, type SuiteHttp } from './suite-client.js';

export interface World {
  token: string;
  consoleToken: string;
  accountId: string;
  merchantId: string;
  email: string;
  password: string;
  hooks: Record<string, string>;
  serial: string;
  secret: string;
  pos: PosClient;
  sessionId: string;
  agreementId: string;
  stopId: string;
  batchId: string;
  eventId: string;
}

export interface ScenarioContext {
  http: SuiteHttp;
  baseUrl: string;
  recorder: Recorder;
  /** Problems that are not answers breaking the document (e.g. a webhook payload off its schema). */
  problem: (message: string) => void;
  /** The per-request time limit, for clients the scenarios make (the terminal's). */
  limits: RequestLimits;
  profile: Profile;
  /** The running check's expectations (failures recorded under its id). */
  readonly expectations: Expectations;
  /** When set (--operation), the negative requests are made for these operations (ids or tags) only. */
  operations?: string[];
}

import type { Profile } from '../../profiles.js';
import type { Expectations } from '../expectations.js';
import type { SuiteHttp } from '../suite-client.js';

// A behavioural check: a rule of the interface, the section that states
// it, the operations it exercises, and the requests that put it to the
// test. Each asserts exact statuses and error codes, never "any documented
// status". Checks are independent: each makes the accounts it needs.

export interface CheckContext {
  http: SuiteHttp;
  baseUrl: string;
  profile: Profile;
  /** Expectations recorded under this check's id and source. */
  expect: Expectations;
  /** Real-time ceiling for background work the suite waits on (deliveries, accreditation), in ms. */
  settleMs: number;
}

export interface Check {
  /** `area.rule`; `--checks area` selects every check of the area. */
  id: string;
  title: string;
  /** Where the rule is written. */
  source: string;
  /** The operationIds it exercises (`--operation` selects by these or by their tags). */
  operations: string[];
  /** Only in the strict profile: the rule is this document's, not the interface's. */
  strictOnly?: boolean;
  /** The open choices (open-choices.ts) this check meets, each accepted whole by `interface`. */
  decisions?: string[];
  run(ctx: CheckContext): Promise<void>;
}

/** Thrown when a check cannot go on (its setup failed); recorded as a failed expectation of the check. */
export class CheckStopped extends Error {}

// Failed expectations, structured like document violations (request,
// operation, status, pointer, expected, got) and carrying the check that
// expected it, the section of the interface it rests on, and a curl
// line that sends the same request again.

import { pointerValue } from '../response-validator.js';
import type { SuiteResponse } from './suite-client.js';

export interface FailedExpectation {
  /** The check's id (`orders.transitions`…). */
  check: string;
  /** Where the rule is written: a section of contracts/INTERFACE.md (INTERFACE.md §N). */
  source: string;
  /** `METHOD /path?query`, or '' when the failure belongs to no one request. */
  request: string;
  /** The documented operation the request landed on, '' when none. */
  operation: string;
  /** The status got; 0 when no answer came. */
  status: number;
  /** JSON pointer in the answer, `header:<name>`, or '' for the answer as a whole. */
  pointer: string;
  expected: string;
  got: string;
  /** The request again, as a curl line (tokens stand as $SVC_TOKEN). */
  curl?: string;
}

/** One line a person reads. */
export function describeFailure(f: FailedExpectation): string {
  const where = f.request
    ? `${f.request} → ${f.status === 0 ? 'no answer' : f.status}${f.pointer ? ` ${f.pointer}` : ''}: `
    : '';
  return `[${f.check}] ${where}expected ${f.expected}, got ${f.got} (${f.source})`;
}

const show = (value: unknown) =>
  value === undefined ? 'nothing' : (JSON.stringify(value)?.slice(0, 200) ?? String(value));

/**
 * What a check asserts, each failure recorded with the check's id and
 * source. Methods answer whether the expectation held, so a check can stop
 * a line of work that no longer makes sense.
 */
export class Expectations {
  constructor(
    private readonly sink: (failure: FailedExpectation) => void,
    readonly check: string,
    readonly source: string,
    private readonly operationOf: (response: SuiteResponse) => string,
  ) {}

  /** Another section for the next expectations of the same check. */
  citing(source: string): Expectations {
    return new Expectations(this.sink, this.check, source, this.operationOf);
  }

  fail(response: SuiteResponse | null, pointer: string, expected: string, got: string): false {
    this.sink({
      check: this.check,
      source: this.source,
      request: response ? `${response.request.method} ${response.request.target}` : '',
      operation: response ? this.operationOf(response) : '',
      status: response?.status ?? 0,
      pointer,
      expected,
      got,
      ...(response ? { curl: response.request.curl } : {}),
    });
    return false;
  }

  /** The exact status, and the error `code` when one is given. */
  status(response: SuiteResponse, status: number, code?: string): boolean {
    if (response.status !== status) {
      const got =
        response.status === 0
          ? 'no answer'
          : `${response.status}${typeof response.body?.code === 'string' ? ` ${response.body.code}` : ''}`;
      return this.fail(response, '', `${status}${code ? ` ${code}` : ''}`, got);
    }
    if (code !== undefined && response.body?.code !== code)
      return this.fail(response, '/code', show(code), show(response.body?.code));
    return true;
  }

  /**
   * Any 2xx: for operations whose success status the documents leave open
   * (open choice success-status). The exact status is the document's to
   * check, in the profile that fixes it.
   */
  success(response: SuiteResponse, what = 'a 2xx'): boolean {
    if (response.status >= 200 && response.status < 300) return true;
    return this.fail(
      response,
      '',
      what,
      response.status === 0
        ? 'no answer'
        : `${response.status}${typeof response.body?.code === 'string' ? ` ${response.body.code}` : ''}`,
    );
  }

  /** A value of the answer's body equals `expected` (deep, as JSON). */
  equal(response: SuiteResponse, pointer: string, expected: unknown, why = ''): boolean {
    const got = pointerValue(response.body, pointer);
    if (JSON.stringify(got) === JSON.stringify(expected)) return true;
    return this.fail(response, pointer, `${show(expected)}${why ? ` (${why})` : ''}`, show(got));
  }

  /** A condition on an answer (or on none), with what was expected and what was seen. */
  that(ok: boolean, response: SuiteResponse | null, pointer: string, expected: string, got: unknown): boolean {
    return ok ? true : this.fail(response, pointer, expected, typeof got === 'string' ? got : show(got));
  }
}

import type { Recorder } from './recorder.js';

export interface SuiteResponse {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

export interface SuiteRequest {
  json?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  token?: string;
}

/** HTTP for the suite: every answer goes through the recorder; nothing throws on a bad answer. */
export function suiteClient(baseUrl: string, recorder: Recorder) {
  return async function request(method: string, path: string, options: SuiteRequest = {}): Promise<SuiteResponse> {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined = options.raw;
    if (options.json !== undefined) {
      body = JSON.stringify(options.json);
      headers['content-type'] ??= 'application/json';
    }
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    const url = new URL(path, baseUrl);
    const response = await fetch(url, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    recorder.record(method, url.pathname, response.status, response.headers, text);
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  };
}

export type SuiteHttp = ReturnType<typeof suiteClient>;

/** A fetch for clients that take one (the terminal's PosClient): its answers go through the recorder too. */
export function recordingFetch(recorder: Recorder): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const text = await response.text();
    const url = new URL(input instanceof Request ? input.url : String(input));
    recorder.record(init?.method ?? 'GET', url.pathname, response.status, response.headers, text);
    return new Response(text === '' ? null : text, { status: response.status, headers: response.headers });
  };
}

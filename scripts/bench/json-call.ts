// One JSON call to our server for a bench's setup: the parsed answer, or an
// error naming the request and the answer when it is not a 2xx.
import type { JsonAnswer } from '../../contracts/json-answer.js';

export async function json(url: string, method: string, body: unknown, token?: string): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

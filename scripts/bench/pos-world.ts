import type { JsonAnswer } from '../../contracts/json-answer.js';

// An account and a terminal on a server under measure, made through its API.

export async function json(url: string, method: string, body: unknown, token?: string): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** An account and a terminal on a server: its merchant, API token and the terminal's secret. */
export async function provisionWorld(
  baseUrl: string,
  serial: string,
): Promise<{ merchantId: string; token: string; secret: string }> {
  const account = await json(`${baseUrl}/console/register`, 'POST', {
    email: `bench-${serial}@example.com`,
    password: 'bench password',
  });
  const terminal = await json(
    `${baseUrl}/api/v1/merchants/${account.merchant_id}/pos-terminals`,
    'POST',
    { serialNumber: serial },
    account.key.token,
  );
  return { merchantId: account.merchant_id, token: account.key.token, secret: terminal.secret };
}

/** An account with `count` terminals, `PREFIX-0` to `PREFIX-(count-1)`: its world (the first terminal's secret) and every terminal. */
export async function provisionTerminals(
  baseUrl: string,
  prefix: string,
  count: number,
): Promise<{
  world: { merchantId: string; token: string; secret: string };
  terminals: Array<{ serial: string; secret: string }>;
}> {
  const world = await provisionWorld(baseUrl, `${prefix}-0`);
  const terminals = [{ serial: `${prefix}-0`, secret: world.secret }];
  for (let i = 1; i < count; i += 1) {
    const serial = `${prefix}-${i}`;
    const made = await json(
      `${baseUrl}/api/v1/merchants/${world.merchantId}/pos-terminals`,
      'POST',
      { serialNumber: serial },
      world.token,
    );
    terminals.push({ serial, secret: made.secret });
  }
  return { world, terminals };
}

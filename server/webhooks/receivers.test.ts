import t from 'tap';
import { registerAccount, startTestServer } from '../testing/test-server.js';

// INTERFACE.md §1, §8: /console/hooks/<account_id>/captura "accepts anything, answers 200,
// records it in the trace"; the other three default receivers keep their
// documented answers whatever the body. Any bytes, any depth, any media
// type, up to the size limit; the raw body kept as received.

const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

t.test('every default receiver answers its status to any body, and the trace keeps the body as received', async (t) => {
  const server = await startTestServer(t);
  const account = await registerAccount(server.api);
  const bodies: Array<{ name: string; bytes: Buffer; type: string }> = [
    { name: 'JSON nested 300 deep', bytes: Buffer.from(deep(300)), type: 'application/json' },
    {
      name: 'invalid UTF-8',
      bytes: Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0xc3, 0x22, 0x7d]),
      type: 'application/json',
    },
    { name: 'binary', bytes: Buffer.from(Array.from({ length: 256 }, (_, i) => i)), type: 'application/octet-stream' },
    { name: 'text/plain', bytes: Buffer.from('just some text, not JSON at all'), type: 'text/plain' },
    { name: 'no media type', bytes: Buffer.from('x=1&y=2'), type: '' },
    { name: 'empty', bytes: Buffer.alloc(0), type: 'application/json' },
  ];
  const expected = { paid: 200, accredited: 200, fail: 500, captura: 200 } as const;
  for (const [receiver, status] of Object.entries(expected)) {
    for (const body of bodies) {
      const response = await fetch(`${server.baseUrl}/console/hooks/${account.account_id}/${receiver}`, {
        method: 'POST',
        headers: body.type ? { 'content-type': body.type } : {},
        body: new Uint8Array(body.bytes),
      });
      await response.arrayBuffer();
      t.equal(response.status, status, `${receiver}, ${body.name}: ${status}`);
    }
  }
  const trace = await server.api.get(`/console/trace?type=webhook.received&limit=100`, {
    token: account.console_token,
  });
  const entries = (trace.body.data as Array<Record<string, unknown>>)
    .filter((entry) => entry.receiver === 'captura')
    .reverse();
  t.equal(entries.length, bodies.length, 'captura recorded every call');
  for (const [i, body] of bodies.entries()) {
    const entry = entries[i]!;
    const kept =
      entry.raw_body_base64 !== undefined
        ? Buffer.from(entry.raw_body_base64 as string, 'base64')
        : Buffer.from(entry.raw_body as string, 'utf8');
    t.ok(kept.equals(body.bytes), `${body.name}: the exact bytes are in the trace`);
  }
  t.equal(entries[0]!.body, null, 'too deep to parse: no parsed body…');
  t.match(entries[0]!.body_omitted, /nested deeper than 64 levels/, '…and the reason');
  t.equal(entries[0]!.raw_body, deep(300));
  t.ok(entries[1]!.raw_body_base64, 'invalid UTF-8 kept in base64');
  t.equal(entries[3]!.body, null, 'text is not JSON: body null');
});

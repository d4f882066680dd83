import t from 'tap';
import { signWebhook, verifyWebhook } from './webhook-signature.js';

// Vector computed independently: printf '%s' "$ts.$body" | openssl dgst -sha256 -hmac "$secret"
const secret = `whsec_${'cd'.repeat(32)}`;
const timestamp = '2026-11-21T10:00:00.000Z';
const body =
  '{"event":"payment_session.paid","event_id":"evt_1","created_at":"2026-11-21T10:00:00.000Z","data":{"session_id":"ses_1","status":"paid","session_payment":{"id":"pay_1","origin":"button","amount_reference":10.5}}}';
const signature = '1e0a0f7807668299de507b56ae799caf6cf75c1ad51cae2c62b7711079ff3b47';
const now = Date.parse(timestamp) + 1000;
const headers = {
  'svc-signature': signature,
  'svc-timestamp': timestamp,
  'idempotency-key': '2f0c6a38-7c1e-4b0e-9a55-0c9d2b9c1e11',
};

t.test('the signature matches the independently computed vector', async (t) => {
  t.equal(signWebhook(secret, timestamp, body), signature);
  t.equal(signWebhook(secret, timestamp, Buffer.from(body)), signature);
});

t.test('a genuine delivery verifies, with its idempotency key, whatever the header case', async (t) => {
  t.same(verifyWebhook({ rawBody: body, headers, secret, now }), {
    ok: true,
    timestamp,
    idempotencyKey: headers['idempotency-key'],
  });
  const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
  t.equal(verifyWebhook({ rawBody: body, headers: upper, secret, now }).ok, true);
  t.equal(verifyWebhook({ rawBody: body, headers: new Headers(headers), secret, now }).ok, true);
});

t.test('re-serialised JSON, a missing timestamp, a wrong secret or a stale timestamp do not verify', async (t) => {
  const reserialised = JSON.stringify(JSON.parse(body), null, 1);
  t.same(verifyWebhook({ rawBody: reserialised, headers, secret, now }), { ok: false, reason: 'signature_mismatch' });
  const { 'svc-timestamp': _ts, ...noTimestamp } = headers;
  t.same(verifyWebhook({ rawBody: body, headers: noTimestamp, secret, now }), {
    ok: false,
    reason: 'missing_timestamp',
  });
  const { 'svc-signature': _sig, ...noSignature } = headers;
  t.same(verifyWebhook({ rawBody: body, headers: noSignature, secret, now }), {
    ok: false,
    reason: 'missing_signature',
  });
  t.same(verifyWebhook({ rawBody: body, headers, secret: `whsec_${'00'.repeat(32)}`, now }), {
    ok: false,
    reason: 'signature_mismatch',
  });
  t.same(verifyWebhook({ rawBody: body, headers: { ...headers, 'svc-signature': 'not hex' }, secret, now }), {
    ok: false,
    reason: 'signature_mismatch',
  });
  t.same(verifyWebhook({ rawBody: body, headers, secret, now: Date.parse(timestamp) + 301_000 }), {
    ok: false,
    reason: 'stale_timestamp',
  });
  t.equal(
    verifyWebhook({ rawBody: body, headers, secret, now: Date.parse(timestamp) + 299_000 }).ok,
    true,
    '5 minutes by default',
  );
  t.same(verifyWebhook({ rawBody: body, headers, secret, now: Date.parse(timestamp) + 61_000, toleranceSeconds: 60 }), {
    ok: false,
    reason: 'stale_timestamp',
  });
  t.same(verifyWebhook({ rawBody: body, headers: { ...headers, 'svc-timestamp': 'yesterday' }, secret, now }), {
    ok: false,
    reason: 'bad_timestamp',
  });
});

t.test(
  'the signature is the 64 lowercase hex digits and nothing else: capitals, or anything before or after them, do not verify',
  async (t) => {
    for (const spelled of [
      signature.toUpperCase(),
      `${signature}zz`,
      `${signature}00`,
      `00${signature}`,
      `zz${signature}`,
      signature.slice(0, 63),
      ` ${signature}`,
    ]) {
      t.same(
        verifyWebhook({ rawBody: body, headers: { ...headers, 'svc-signature': spelled }, secret, now }),
        { ok: false, reason: 'signature_mismatch' },
        JSON.stringify(spelled),
      );
    }
  },
);

t.test('the tolerance is inclusive: exactly 300 s either way verifies, a millisecond more does not', async (t) => {
  const at = Date.parse(timestamp);
  t.equal(verifyWebhook({ rawBody: body, headers, secret, now: at + 300_000 }).ok, true);
  t.equal(verifyWebhook({ rawBody: body, headers, secret, now: at - 300_000 }).ok, true);
  t.same(verifyWebhook({ rawBody: body, headers, secret, now: at + 300_001 }), {
    ok: false,
    reason: 'stale_timestamp',
  });
  t.same(verifyWebhook({ rawBody: body, headers, secret, now: at - 300_001 }), {
    ok: false,
    reason: 'stale_timestamp',
  });
});

t.test('a body with characters beyond ASCII is signed over its UTF-8 bytes, as text or as bytes', async (t) => {
  // printf '%s' '2026-11-21T10:00:00.000Z.{"description":"café ñandú €"}' | openssl dgst -sha256 -hmac "$secret"
  const text = '{"description":"café ñandú €"}';
  const expected = signWebhook(secret, timestamp, Buffer.from(text, 'utf8'));
  t.equal(signWebhook(secret, timestamp, text), expected);
  t.equal(expected, 'fca3b4c285565fc1a2f97ddb2e334c25350c325e6388577d5a006aaf69ae20b2');
});

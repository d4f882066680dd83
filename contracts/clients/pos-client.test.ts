import t from 'tap';
import { computePosSignature, signPosRequest } from './pos-client.js';

// Vectors computed independently with: printf '%s' "$ts.$url.$body" | openssl dgst -sha256 -hmac "$secret"
const secret = 'ab'.repeat(32);
const timestamp = '2026-11-21T10:00:00.000Z';
const settlementBody =
  '{"batchNumber":"B1","transactionCount":3,"closedAt":"2026-11-21T09:00:00.000Z","currencyReference":"USD","terminal":"POS-1","debitBatch":"D1"}';

t.test('signatures match the independently computed vectors', async (t) => {
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/POS-1/settlements', settlementBody),
    '301e62e1cd8ca0fe9cd7ee44251d479820f5d8415ce3eced19139876f979968c',
    'a JSON body',
  );
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/POS-1/transactions/ord_1/invalidation/commit', ''),
    '71bf586ada75aa9488b7a9df2462a0e3acce308b7b3e0de8a7ab172e3f7e52fe',
    'a bodyless request signs the empty string',
  );
  t.equal(
    computePosSignature(secret, timestamp, '/api/v1/pos-terminals/POS-1/transactions?status=VOID_PENDING', ''),
    '6a89d0284cda48310613e3f700bb0b92a3707f1c09d279b96ad0fc3de96f0ff3',
    'the query is part of the signed URL',
  );
});

t.test('signPosRequest gives both headers for the time given', async (t) => {
  const headers = signPosRequest({
    secret,
    method: 'POST',
    url: '/api/v1/pos-terminals/POS-1/settlements',
    body: settlementBody,
    now: Date.parse(timestamp),
  });
  t.same(headers, {
    'x-pos-timestamp': timestamp,
    'x-pos-signature': '301e62e1cd8ca0fe9cd7ee44251d479820f5d8415ce3eced19139876f979968c',
  });
  const fromBuffer = signPosRequest({
    secret,
    method: 'POST',
    url: '/api/v1/pos-terminals/POS-1/settlements',
    body: Buffer.from(settlementBody),
    now: new Date(timestamp),
  });
  t.equal(fromBuffer['x-pos-signature'], headers['x-pos-signature'], 'bytes and text sign the same');
});

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import t from 'tap';
import { ProtocolError } from '../../errors.js';
import { seededRandom } from '../../../contracts/common/seeded-random.js';
import { seal, unseal, type SecuredMessage } from './crypto.js';
import { readEnvelope } from './messages.js';

// Adyen's payload encryption, judged by a real terminal's message: the
// known-answer vector of Adyen's Node library (an encrypted response of a
// P400 Plus test terminal, with its passphrase), then generated messages.

const vector = JSON.parse(
  readFileSync(new URL('../../../fixtures/nexo/known-answer.json', import.meta.url), 'utf8'),
) as {
  passphrase: string;
  keyIdentifier: string;
  keyVersion: number;
  envelope: { SaleToPOIResponse: SecuredMessage };
  plaintextSha256: string;
};
const key = { keyIdentifier: vector.keyIdentifier, keyVersion: vector.keyVersion, passphrase: vector.passphrase };

t.test("a real terminal's encrypted response decrypts, and its HMAC holds", async (t) => {
  const plaintext = unseal(vector.envelope.SaleToPOIResponse, key);
  t.equal(createHash('sha256').update(plaintext).digest('hex'), vector.plaintextSha256);
  const read = readEnvelope(plaintext, 'SaleToPOIResponse');
  t.equal(read.kind, 'plain');
  if (read.kind === 'plain') {
    t.equal(read.message.header.POIID, 'P400Plus-275039202');
    t.match(read.message.body, {
      POIData: { POITransactionID: { TransactionID: '4r7i001557325515012.8815573255107661' } },
    });
  }
});

t.test('sealed again with the same nonce, it is the same blob and HMAC', async (t) => {
  const plaintext = unseal(vector.envelope.SaleToPOIResponse, key);
  const nonce = Buffer.from(vector.envelope.SaleToPOIResponse.SecurityTrailer.Nonce, 'base64');
  const again = seal(vector.envelope.SaleToPOIResponse.MessageHeader, plaintext, key, nonce);
  t.equal(again.NexoBlob, vector.envelope.SaleToPOIResponse.NexoBlob);
  t.equal(again.SecurityTrailer.Hmac, vector.envelope.SaleToPOIResponse.SecurityTrailer.Hmac);
});

t.test('a wrong passphrase, a wrong key name, a changed blob: each a NexoCryptoError', async (t) => {
  const message = vector.envelope.SaleToPOIResponse;
  t.throws(() => unseal(message, { ...key, passphrase: 'wrong' }), ProtocolError);
  t.throws(() => unseal(message, { ...key, keyIdentifier: 'Other' }), { code: 'UNKNOWN_KEY' });
  t.throws(() => unseal(message, { ...key, keyVersion: 2 }), { code: 'UNKNOWN_KEY' });
  const hmac = Buffer.from(message.SecurityTrailer.Hmac, 'base64');
  hmac[0]! ^= 1;
  t.throws(
    () => unseal({ ...message, SecurityTrailer: { ...message.SecurityTrailer, Hmac: hmac.toString('base64') } }, key),
    { code: 'HMAC_MISMATCH' },
  );
  t.throws(() => unseal({ ...message, SecurityTrailer: { ...message.SecurityTrailer, Nonce: 'AAAA' } }, key), {
    code: 'BROKEN_BLOB',
  });
});

t.test('generated messages round-trip; any changed byte of the blob is refused', async (t) => {
  const random = seededRandom(57);
  for (let i = 0; i < 200; i += 1) {
    const length = Math.floor(random() * 300);
    const text = Array.from({ length }, () => String.fromCodePoint(32 + Math.floor(random() * 0x2fff))).join('');
    const sealed = seal({ n: i }, text, key, randomBytes(16));
    t.equal(unseal(sealed, key), text);
    const blob = Buffer.from(sealed.NexoBlob, 'base64');
    blob[Math.floor(random() * blob.length)]! ^= 1 + Math.floor(random() * 255);
    t.throws(() => unseal({ ...sealed, NexoBlob: blob.toString('base64') }, key), ProtocolError);
  }
});

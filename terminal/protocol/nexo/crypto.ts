import { createCipheriv, createDecipheriv, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';
import { ProtocolError } from '../../errors.js';

// Adyen's payload encryption of the Terminal API (AdyenCryptoVersion 1):
// both ends derive 80 bytes from a shared passphrase with PBKDF2-HMAC-SHA1
// (salt "AdyenNexoV1Salt", 4,000 iterations): an HMAC key (bytes 0-31), an
// AES-256 key (32-63) and an IV (64-79). Each message draws a 16-byte
// nonce, encrypts its JSON with AES-256-CBC under the derived IV XOR the
// nonce, and carries an HMAC-SHA256 of the plaintext. The message header
// travels in clear beside the blob, so a terminal can answer a message it
// cannot read with the header it was sent.

const SALT = 'AdyenNexoV1Salt';
const ITERATIONS = 4000;
const NONCE_BYTES = 16;

/** What a terminal and its cash register share: the passphrase and the names it is known by. */
export interface SecurityKey {
  keyIdentifier: string;
  keyVersion: number;
  passphrase: string;
}

export interface SecurityTrailer {
  AdyenCryptoVersion: number;
  KeyIdentifier: string;
  KeyVersion: number;
  Nonce: string;
  Hmac: string;
}

/** An encrypted message: the header in clear, the body in the blob. */
export interface SecuredMessage {
  MessageHeader: Record<string, unknown>;
  NexoBlob: string;
  SecurityTrailer: SecurityTrailer;
}

interface DerivedKey {
  hmacKey: Buffer;
  cipherKey: Buffer;
  iv: Buffer;
}

// PBKDF2 costs a few milliseconds: a terminal and a cash register each use one passphrase, so derive it once.
const derived = new Map<string, DerivedKey>();

function derive(passphrase: string): DerivedKey {
  const known = derived.get(passphrase);
  if (known) return known;
  const material = pbkdf2Sync(passphrase, SALT, ITERATIONS, 80, 'sha1');
  const key = {
    hmacKey: material.subarray(0, 32),
    cipherKey: material.subarray(32, 64),
    iv: material.subarray(64, 80),
  };
  if (derived.size > 16) derived.clear();
  derived.set(passphrase, key);
  return key;
}

function ivFor(key: DerivedKey, nonce: Buffer): Buffer {
  const iv = Buffer.alloc(NONCE_BYTES);
  for (let i = 0; i < NONCE_BYTES; i += 1) iv[i] = key.iv[i]! ^ (nonce[i] ?? 0);
  return iv;
}

const hmacOf = (key: DerivedKey, plaintext: Buffer) => createHmac('sha256', key.hmacKey).update(plaintext).digest();

/** Encrypts `plaintext` (the whole message's JSON) under `key`, with the header to carry in clear. */
export function seal(
  header: Record<string, unknown>,
  plaintext: string,
  key: SecurityKey,
  nonce: Buffer = randomBytes(NONCE_BYTES),
): SecuredMessage {
  const derivedKey = derive(key.passphrase);
  const bytes = Buffer.from(plaintext, 'utf8');
  const cipher = createCipheriv('aes-256-cbc', derivedKey.cipherKey, ivFor(derivedKey, nonce));
  return {
    MessageHeader: header,
    NexoBlob: Buffer.concat([cipher.update(bytes), cipher.final()]).toString('base64'),
    SecurityTrailer: {
      AdyenCryptoVersion: 1,
      KeyIdentifier: key.keyIdentifier,
      KeyVersion: key.keyVersion,
      Nonce: nonce.toString('base64'),
      Hmac: hmacOf(derivedKey, bytes).toString('base64'),
    },
  };
}

/**
 * What makes an envelope not one, in words, or undefined: it came as JSON
 * from anyone, so every field may be of any type. A terminal answers a
 * broken envelope as it answers a wrong key.
 */
function envelopeProblem(message: SecuredMessage): string | undefined {
  const { NexoBlob: blob, SecurityTrailer: trailer } = message as unknown as Record<string, unknown>;
  if (typeof blob !== 'string' || blob.length === 0) return 'the NexoBlob is not a string of base64';
  if (typeof trailer !== 'object' || trailer === null || Array.isArray(trailer))
    return 'the SecurityTrailer is not an object';
  const fields = trailer as Record<string, unknown>;
  for (const name of ['KeyIdentifier', 'Nonce', 'Hmac'])
    if (typeof fields[name] !== 'string') return `the SecurityTrailer's ${name} is not a string`;
  const version = fields.KeyVersion;
  if (!(typeof version === 'number' || (typeof version === 'string' && /^\d+$/.test(version))))
    return "the SecurityTrailer's KeyVersion is not a number";
  // Version 1 is the only one; a cash register that leaves it out is read as version 1.
  if (fields.AdyenCryptoVersion !== undefined && Number(fields.AdyenCryptoVersion) !== 1)
    return `AdyenCryptoVersion ${JSON.stringify(fields.AdyenCryptoVersion)} is not 1`;
  if (fields.AdyenCryptoVersion !== undefined && typeof fields.AdyenCryptoVersion === 'boolean')
    return 'AdyenCryptoVersion is not a number';
  return undefined;
}

/**
 * The plaintext of a secured message, or a NexoCryptoError: a key this end
 * does not have, a blob that does not decrypt, or an HMAC that does not
 * match (compared in constant time).
 */
export function unseal(message: SecuredMessage, key: SecurityKey): string {
  const broken = envelopeProblem(message);
  if (broken) throw new ProtocolError('NEXO_BROKEN_BLOB', broken);
  const trailer = message.SecurityTrailer;
  if (trailer.KeyIdentifier !== key.keyIdentifier || Number(trailer.KeyVersion) !== key.keyVersion)
    throw new ProtocolError(
      'NEXO_UNKNOWN_KEY',
      `the message is encrypted with key ${trailer.KeyIdentifier} version ${trailer.KeyVersion}, not ${key.keyIdentifier} version ${key.keyVersion}`,
    );
  const derivedKey = derive(key.passphrase);
  const nonce = Buffer.from(trailer.Nonce, 'base64');
  if (nonce.length !== NONCE_BYTES) throw new ProtocolError('NEXO_BROKEN_BLOB', 'the nonce is not 16 bytes');
  let plaintext: Buffer;
  try {
    const decipher = createDecipheriv('aes-256-cbc', derivedKey.cipherKey, ivFor(derivedKey, nonce));
    plaintext = Buffer.concat([decipher.update(Buffer.from(message.NexoBlob, 'base64')), decipher.final()]);
  } catch {
    // A wrong passphrase almost always shows as bad padding.
    throw new ProtocolError('NEXO_BROKEN_BLOB', 'the blob does not decrypt with this passphrase');
  }
  const expected = hmacOf(derivedKey, plaintext);
  const received = Buffer.from(trailer.Hmac, 'base64');
  if (received.length !== expected.length || !timingSafeEqual(received, expected))
    throw new ProtocolError('NEXO_HMAC_MISMATCH', 'the HMAC does not match the decrypted message');
  return plaintext.toString('utf8');
}

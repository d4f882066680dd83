import { createHash, randomBytes, randomFillSync, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// The secret material of accounts: random tokens, token digests and
// password hashes. Comparisons are constant-time.

/** 32 random bytes as 64 lowercase hex characters, behind a kind prefix. */
export function newSecret(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('hex')}`;
}

const ID_BYTES = 9;
// Ids come from the CSPRNG 4 KiB at a time: one call into it per 455 ids,
// not one each (a webhook delivery makes two ids; the call was 7 % of its CPU).
const idPool = Buffer.alloc(ID_BYTES * 455);
let idOffset = idPool.length;

export function newId(prefix: string): string {
  if (idOffset + ID_BYTES > idPool.length) {
    randomFillSync(idPool);
    idOffset = 0;
  }
  idOffset += ID_BYTES;
  return `${prefix}_${idPool.toString('hex', idOffset - ID_BYTES, idOffset)}`;
}

/** The key a token's index record is stored under. */
export function tokenDigest(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Constant-time equality of bytes (a digest, a signature) and their
 * lowercase hex text as received: the text is decoded once, the digest
 * never encoded. Text that is not hex of the same length never matches.
 */
export function bytesEqualHex(bytes: Buffer, hex: string): boolean {
  const decoded = Buffer.from(hex, 'hex');
  return decoded.length === bytes.length && hex.length === bytes.length * 2 && timingSafeEqual(decoded, bytes);
}

const KEY_LENGTH = 32;

function scryptAsync(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
  );
}

/** `scrypt$N$r$p$salt$hash`, hex; the parameters travel with the hash. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, { N: cost, r: 8, p: 1, maxmem: 256 * cost * 8 });
  return `scrypt$${cost}$8$1$${salt.toString('hex')}$${key.toString('hex')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const N = Number(n);
  const key = await scryptAsync(password, Buffer.from(salt, 'hex'), {
    N,
    r: Number(r),
    p: Number(p),
    maxmem: 256 * N * Number(r),
  });
  const expected = Buffer.from(hash, 'hex');
  return key.length === expected.length && timingSafeEqual(key, expected);
}

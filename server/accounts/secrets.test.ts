import t from 'tap';
import { defaultConfig } from '../config.js';
import { bytesEqualHex, hashPassword, newId, newSecret, verifyPassword } from './secrets.js';

t.test('passwords hash with the production scrypt cost and verify only with the same password', async (t) => {
  const hash = await hashPassword('correct horse', defaultConfig.scryptCost);
  t.match(hash, new RegExp(`^scrypt\\$${defaultConfig.scryptCost}\\$8\\$1\\$`));
  t.equal(await verifyPassword('correct horse', hash), true);
  t.equal(await verifyPassword('correct horsE', hash), false);
  t.equal(await verifyPassword('correct horse', 'not a hash'), false);
  t.not(await hashPassword('correct horse', 1024), await hashPassword('correct horse', 1024), 'salted');
});

t.test('secrets are 32 random bytes in lowercase hex behind their prefix', async (t) => {
  t.match(newSecret('sk'), /^sk_[0-9a-f]{64}$/);
  t.not(newSecret('sk'), newSecret('sk'));
});

t.test('constant-time hex comparison answers equality, and inequality for other lengths or non-hex', async (t) => {
  const bytes = Buffer.from('ab'.repeat(32), 'hex');
  t.equal(bytesEqualHex(bytes, 'ab'.repeat(32)), true);
  t.equal(bytesEqualHex(bytes, `${'ab'.repeat(31)}ac`), false);
  t.equal(bytesEqualHex(bytes, 'ab'.repeat(31)), false, 'shorter text');
  t.equal(bytesEqualHex(bytes, `${'ab'.repeat(32)}0`), false, 'an odd trailing digit');
  t.equal(bytesEqualHex(Buffer.alloc(32), 'zz'.repeat(32)), false, 'text that is not hex never matches');
});

t.test(
  'ids are 18 lowercase hex characters behind their prefix, and never repeat across refills of the random pool',
  async (t) => {
    const ids = Array.from({ length: 2000 }, () => newId('trc'));
    t.ok(
      ids.every((id) => /^trc_[0-9a-f]{18}$/.test(id)),
      'format',
    );
    t.equal(new Set(ids).size, ids.length, 'all different, over four refills');
  },
);

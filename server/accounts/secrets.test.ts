import t from 'tap';
import { defaultConfig } from '../config.js';
import { constantTimeEqual, hashPassword, newSecret, verifyPassword } from './secrets.js';

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

t.test('constant-time comparison answers equality, including for different lengths', async (t) => {
  t.equal(constantTimeEqual('abc', 'abc'), true);
  t.equal(constantTimeEqual('abc', 'abd'), false);
  t.equal(constantTimeEqual('abc', 'abcd'), false);
  t.equal(constantTimeEqual('', ''), true);
});

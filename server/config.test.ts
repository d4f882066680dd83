import t from 'tap';
import { defaultConfig, loadConfig } from './config.js';
import { appError } from './errors.js';

t.test('defaults apply when the environment says nothing', async (t) => {
  t.same(loadConfig({}), defaultConfig);
});

t.test('the environment sets port, host, data dir, public URL and log level', async (t) => {
  const config = loadConfig({
    PORT: '8080',
    HOST: '0.0.0.0',
    DATA_DIR: '/tmp/x',
    SIM_PUBLIC_URL: 'https://sim.example.com/ignored/path',
    LOG_LEVEL: 'debug',
    SIM_ACCREDITATION_DELAY_MS: '250',
    POS_SIGNATURE_TOLERANCE_S: '60',
  });
  t.match(config, {
    port: 8080,
    host: '0.0.0.0',
    dataDir: '/tmp/x',
    publicUrl: 'https://sim.example.com',
    logLevel: 'debug',
    accreditationDelayMs: 250,
    posSignatureToleranceSeconds: 60,
  });
});

t.test('a bad value is refused with a message naming the variable', async (t) => {
  t.throws(
    () => loadConfig({ PORT: 'eighty' }),
    appError('CONFIG_INVALID', 'PORT must be an integer from 0 to 65535, got "eighty"'),
  );
  t.throws(() => loadConfig({ PORT: '70000' }), { message: /PORT must be an integer from 0 to 65535/ });
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), { message: /LOG_LEVEL/ });
  t.throws(() => loadConfig({ SIM_ACCREDITATION_DELAY_MS: '-1' }), { message: /SIM_ACCREDITATION_DELAY_MS/ });
  t.throws(() => loadConfig({ POS_SIGNATURE_TOLERANCE_S: '0' }), { message: /POS_SIGNATURE_TOLERANCE_S/ });
  t.throws(() => loadConfig({ SIM_PUBLIC_URL: 'not a url' }), { message: /SIM_PUBLIC_URL/ });
});

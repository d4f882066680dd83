import type { PeerCertificate } from 'node:tls';
import t from 'tap';
import { terminalIdentity } from './nexo-client.js';

// Which certificates the bridge takes from a nexo terminal (beside the
// root it trusts): a terminal's name, as Adyen's libraries take, or one
// valid for the address it dialled.

const cert = (CN: string, subjectaltname?: string) =>
  ({ subject: { CN }, ...(subjectaltname ? { subjectaltname } : {}) }) as unknown as PeerCertificate;

t.test('a terminal name, or the host; nothing else', async (t) => {
  t.equal(terminalIdentity('192.0.2.10', cert('V400m-324688179.test.terminal.adyen.com')), undefined);
  t.equal(terminalIdentity('192.0.2.10', cert('legacy-terminal-certificate.live.terminal.adyen.com')), undefined);
  t.equal(terminalIdentity('127.0.0.1', cert('emulator', 'DNS:localhost, IP Address:127.0.0.1')), undefined);
  t.match(terminalIdentity('192.0.2.10', cert('evil.example.com', 'DNS:evil.example.com')), {
    message: /neither a terminal's .* nor 192\.0\.2\.10/,
  });
  t.ok(
    terminalIdentity('192.0.2.10', cert('V400m.test.terminal.adyen.com')),
    'a name without MODEL-SERIAL is not a terminal',
  );
});

import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join } from 'node:path';
import forge from 'node-forge';

// The emulated terminal's TLS: a root of its own in DIR/ca.pem (the file a
// cash register trusts, as it trusts Adyen's terminal root for a real
// terminal) and, made at each start, a terminal certificate signed by it
// with the subject a real terminal's has, <POIID>.test.terminal.adyen.com
// (Adyen's libraries check that name, not the host's), and the listen
// address in its subjectAltName for clients that do check the host. Keys
// are made by Node's crypto; node-forge writes the X.509 certificates,
// which Node's crypto cannot.

export interface TerminalTls {
  /** The root's certificate, PEM: what the cash register trusts. */
  ca: string;
  caPath: string;
  key: string;
  cert: string;
}

const YEAR_MS = 365 * 24 * 3600_000;

function keyPair(): { publicKey: string; privateKey: string } {
  return generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  });
}

function certificate(options: {
  publicKey: string;
  subject: forge.pki.CertificateField[];
  issuer: forge.pki.CertificateField[];
  signingKey: string;
  extensions: object[];
  years: number;
}): string {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(options.publicKey);
  // A positive serial: the first byte's high bit clear.
  cert.serialNumber = `0${randomBytes(12).toString('hex').slice(1)}`;
  const now = Date.now();
  // A day back, for a cash register whose clock runs behind.
  cert.validity.notBefore = new Date(now - 24 * 3600_000);
  cert.validity.notAfter = new Date(now + options.years * YEAR_MS);
  cert.setSubject(options.subject);
  cert.setIssuer(options.issuer);
  cert.setExtensions(options.extensions);
  cert.sign(forge.pki.privateKeyFromPem(options.signingKey), forge.md.sha256.create());
  return forge.pki.certificateToPem(cert);
}

const ROOT_NAME = [
  { name: 'commonName', value: 'svc-pos-sim emulated terminal root' },
  { name: 'organizationName', value: 'svc-pos-sim' },
];

/** The root in `dir`, made (its key 0600) when absent. */
export function ensureRoot(dir: string): { ca: string; caKey: string; caPath: string } {
  const caPath = join(dir, 'ca.pem');
  const keyPath = join(dir, 'ca-key.pem');
  if (existsSync(caPath) && existsSync(keyPath))
    return { ca: readFileSync(caPath, 'utf8'), caKey: readFileSync(keyPath, 'utf8'), caPath };
  mkdirSync(dir, { recursive: true });
  const keys = keyPair();
  const ca = certificate({
    publicKey: keys.publicKey,
    subject: ROOT_NAME,
    issuer: ROOT_NAME,
    signingKey: keys.privateKey,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ],
    years: 20,
  });
  writeFileSync(keyPath, keys.privateKey, { mode: 0o600 });
  chmodSync(keyPath, 0o600);
  writeFileSync(caPath, ca, { mode: 0o644 });
  return { ca, caKey: keys.privateKey, caPath };
}

/** The subject a real Adyen test terminal's certificate has. */
export const terminalCommonName = (poiid: string) => `${poiid}.test.terminal.adyen.com`;

/** The root (made when absent) and a fresh terminal certificate for `poiid`, naming `host` in its SAN. */
export function terminalTls(dir: string, poiid: string, host: string): TerminalTls {
  const root = ensureRoot(dir);
  const keys = keyPair();
  const altNames = [
    { type: 2, value: terminalCommonName(poiid) },
    { type: 2, value: 'localhost' },
    isIP(host) ? { type: 7, ip: host } : { type: 2, value: host },
  ];
  const cert = certificate({
    publicKey: keys.publicKey,
    subject: [{ name: 'commonName', value: terminalCommonName(poiid) }],
    issuer: forge.pki.certificateFromPem(root.ca).subject.attributes,
    signingKey: root.caKey,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
    years: 2,
  });
  return { ca: root.ca, caPath: root.caPath, key: keys.privateKey, cert };
}

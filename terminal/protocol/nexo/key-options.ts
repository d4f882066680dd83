import type { CredentialKind } from '../../../contracts/cli/credential.js';

// How a nexo terminal and its cash register are given what they share.

export const NEXO_PASSPHRASE: CredentialKind = {
  what: "the nexo passphrase (the terminal's key, as set in the Customer Area)",
  flag: '--passphrase',
  fileFlag: '--passphrase-file',
  env: 'SVC_NEXO_PASSPHRASE',
};

export const NEXO_API_KEY: CredentialKind = {
  what: 'the Terminal API key of the cloud shape (X-API-Key)',
  flag: '--api-key',
  fileFlag: '--api-key-file',
  env: 'SVC_NEXO_API_KEY',
};

/** A Terminal API port: Adyen's terminals listen on 8443. */
export const NEXO_PORT = 8443;

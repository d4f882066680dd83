/** What a bearer token may be used for. */
export type TokenKind = 'api' | 'login' | 'console' | 'refresh';

/** One account is one merchant (INTERFACE.md §1). */
export interface Account {
  [field: string]: unknown;
  account_id: string;
  merchant_id: string;
  email: string;
  short_name: string | null;
  password_hash: string;
  created_at: string;
  /** How far this account's clock runs ahead of the service clock (INTERFACE.md §6). */
  clock_offset_ms: number;
  keys: Array<{ token: string; webhook_secret: string; created_at: string }>;
  /** The console token in force; null until the first login for accounts registered through POST /register. */
  console_token: string | null;
  /** The digest of the console token the last login replaced: kept (one an account) so it can say so. */
  replaced_console_token?: string | null;
}

/** Index record of a token, stored under the SHA-256 of the token so tokens are never looked up by their text. */
export interface TokenRecord {
  [field: string]: unknown;
  kind: TokenKind;
  account_id: string;
  /** Epoch ms on the account's clock; null for tokens that never expire. */
  expires_at: number | null;
  /** A console token a login replaced: when (ISO). It opens nothing; a 401 says so. */
  replaced_at?: string;
}

export const tokenPrefix: Record<TokenKind, string> = { api: 'sk', login: 'lt', console: 'ct', refresh: 'rt' };

/** "a login token", "an API token": the article a kind's name takes. */
export const withArticle = (kind: TokenKind) => `${kind === 'api' ? 'an' : 'a'} ${describeKind[kind]} token`;

export const describeKind: Record<TokenKind, string> = {
  api: 'API',
  login: 'login',
  console: 'console',
  refresh: 'refresh',
};

export function hookUrls(
  publicUrl: string,
  accountId: string,
): { paid: string; accredited: string; fail: string; captura: string } {
  const base = `${publicUrl}/console/hooks/${accountId}`;
  return { paid: `${base}/paid`, accredited: `${base}/accredited`, fail: `${base}/fail`, captura: `${base}/captura` };
}

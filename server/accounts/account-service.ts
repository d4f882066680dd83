import { accountNow, iso, type Clock } from '../clock.js';
import { appError, isAppError } from '../errors.js';

import type { Store } from '../store/store.js';
import { describeKind, tokenPrefix, withArticle, type Account, type TokenKind, type TokenRecord } from './account.js';
import { hashPassword, newId, newSecret, tokenDigest, verifyPassword } from './secrets.js';

export interface RegisterInput {
  email: string;
  password: string;
  short_name?: string;
}

export interface LoginInput {
  email?: string;
  short_name?: string;
  password: string;
}

export interface IssuedTokens {
  token: string;
  refreshToken: string;
  expires_in: number;
  console_token: string;
}

const TOKEN_SHAPE = /^(sk|lt|ct|rt)_[0-9a-f]{64}$/;

/** Accounts and their tokens (INTERFACE.md §1). */
export class AccountService {
  /** Verified against when the account is unknown, so both failures take as long. */
  private readonly decoyHash: Promise<string>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly options: { scryptCost: number; loginTokenTtlSeconds: number },
  ) {
    this.decoyHash = hashPassword('decoy password', options.scryptCost);
  }

  /** The account's rate brake (INTERFACE.md §8): requests a minute, or null for none. */
  async setRateLimit(accountId: string, perMinute: number | null): Promise<void> {
    await this.store.transact(async (tx) => {
      const account = await tx.get<Account>('accounts', accountId);
      if (!account) throw appError('NOT_FOUND', `account ${accountId}`);
      tx.put('accounts', accountId, { ...account, rate_limit_per_minute: perMinute });
    });
  }

  async register(input: RegisterInput, withConsoleToken: boolean): Promise<Account> {
    const passwordHash = await hashPassword(input.password, this.options.scryptCost);
    const account: Account = {
      account_id: newId('acc'),
      merchant_id: newId('mer'),
      email: input.email,
      short_name: input.short_name ?? null,
      password_hash: passwordHash,
      created_at: iso(this.clock.now()),
      clock_offset_ms: 0,
      keys: [
        { token: newSecret(tokenPrefix.api), webhook_secret: newSecret('whsec'), created_at: iso(this.clock.now()) },
      ],
      console_token: withConsoleToken ? newSecret(tokenPrefix.console) : null,
    };
    try {
      await this.store.transact((tx) => {
        tx.insert('emails', account.email.toLowerCase(), { account_id: account.account_id });
        if (account.short_name)
          tx.insert('short_names', account.short_name.toLowerCase(), { account_id: account.account_id });
        tx.insert('accounts', account.account_id, account);
        tx.insert('merchants', account.merchant_id, { account_id: account.account_id });
        tx.insert('tokens', tokenDigest(account.keys[0]!.token), tokenRecord('api', account, null));
        if (account.console_token)
          tx.insert('tokens', tokenDigest(account.console_token), tokenRecord('console', account, null));
      });
    } catch (error) {
      if (
        isAppError(error, 'DUPLICATE_KEY') &&
        (error.extra?.collection === 'emails' || error.extra?.collection === 'short_names')
      ) {
        const field = error.extra?.collection === 'emails' ? 'email' : 'short_name';
        throw appError('ACCOUNT_EXISTS', `an account with this ${field} is already registered`);
      }
      throw error;
    }
    return account;
  }

  /** Checks the password, rotates the console token and issues a login and a refresh token. */
  async login(input: LoginInput): Promise<IssuedTokens> {
    const index =
      input.email !== undefined
        ? await this.store.get<{ account_id: string }>('emails', input.email.toLowerCase())
        : await this.store.get<{ account_id: string }>('short_names', (input.short_name ?? '').toLowerCase());
    const account = index && (await this.store.get<Account>('accounts', index.account_id));
    const passwordOk = await verifyPassword(input.password, account ? account.password_hash : await this.decoyHash);
    if (!account || !passwordOk) throw appError('INVALID_CREDENTIALS');

    return this.store.transact(async (tx) => {
      const current = (await tx.get<Account>('accounts', account.account_id))!;
      // The console token in force stops working now (INTERFACE.md §1). Its record stays, marked, so a
      // console or a script still holding it hears why; only the last one replaced is kept.
      let replaced: string | null = current.replaced_console_token ?? null;
      if (current.console_token) {
        if (replaced) tx.delete('tokens', replaced);
        replaced = tokenDigest(current.console_token);
        tx.put('tokens', replaced, {
          ...tokenRecord('console', current, null),
          replaced_at: iso(accountNow(this.clock, current)),
        });
      }
      const consoleToken = newSecret(tokenPrefix.console);
      tx.insert('tokens', tokenDigest(consoleToken), tokenRecord('console', current, null));
      tx.put('accounts', current.account_id, {
        ...current,
        console_token: consoleToken,
        replaced_console_token: replaced,
      });
      return this.issue(tx, current, consoleToken);
    });
  }

  /** New login and refresh tokens; the presented refresh token stays valid, the console token is kept. */
  async refresh(refreshToken: string): Promise<IssuedTokens> {
    const { account } = await this.authenticate(refreshToken, ['refresh']);
    return this.store.transact(async (tx) => {
      const current = (await tx.get<Account>('accounts', account.account_id))!;
      let consoleToken = current.console_token;
      if (!consoleToken) {
        consoleToken = newSecret(tokenPrefix.console);
        tx.insert('tokens', tokenDigest(consoleToken), tokenRecord('console', current, null));
        tx.put('accounts', current.account_id, { ...current, console_token: consoleToken });
      }
      return this.issue(tx, current, consoleToken);
    });
  }

  /**
   * The account a token opens, when its kind is one of `allowed`. Tokens are
   * found by their SHA-256 digest, never compared as text. Unknown, revoked
   * and expired tokens answer INVALID_TOKEN; a valid token of another kind
   * WRONG_TOKEN_KIND.
   */
  async authenticate(token: string, allowed: TokenKind[]): Promise<{ account: Account; kind: TokenKind }> {
    if (!TOKEN_SHAPE.test(token)) throw appError('INVALID_TOKEN');
    const [record, account] = await this.store.getLinked<TokenRecord, Account>(
      'tokens',
      tokenDigest(token),
      'account_id',
      'accounts',
    );
    if (!record || !account) throw appError('INVALID_TOKEN');
    if (record.replaced_at)
      throw appError(
        'INVALID_TOKEN',
        `this console token was replaced by a login at ${record.replaced_at}: use the console token that login answered, or log in again`,
      );
    if (record.expires_at !== null && accountNow(this.clock, account) >= record.expires_at) {
      throw appError('INVALID_TOKEN', 'the login token has expired; log in again or use the refresh token');
    }
    if (!allowed.includes(record.kind)) {
      throw appError('WRONG_TOKEN_KIND', describeKind[record.kind], allowed.map(withArticle).join(' or '));
    }
    return { account, kind: record.kind };
  }

  private issue(
    tx: { insert: (c: string, id: string, v: TokenRecord) => void },
    account: Account,
    consoleToken: string,
  ): IssuedTokens {
    const ttl = this.options.loginTokenTtlSeconds;
    const token = newSecret(tokenPrefix.login);
    const refreshToken = newSecret(tokenPrefix.refresh);
    tx.insert(
      'tokens',
      tokenDigest(token),
      tokenRecord('login', account, accountNow(this.clock, account) + ttl * 1000),
    );
    tx.insert('tokens', tokenDigest(refreshToken), tokenRecord('refresh', account, null));
    return { token, refreshToken, expires_in: ttl, console_token: consoleToken };
  }
}

function tokenRecord(kind: TokenKind, account: Account, expiresAt: number | null): TokenRecord {
  return { kind, account_id: account.account_id, expires_at: expiresAt };
}

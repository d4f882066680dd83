import type { Account } from '../accounts/account.js';
import { newId } from '../accounts/secrets.js';
import { accountNow, iso, type Clock } from '../clock.js';
import { appError } from '../errors.js';
import type { Store, Transaction } from '../store/store.js';
import { splitLinkKey } from './record-keys.js';

export interface AgreementRecord {
  [field: string]: unknown;
  agreement_id: string;
  account_id: string;
  name: string;
  currency_reference: string;
  split: boolean;
  payment_methods: string[];
  created_at: string;
}

export interface PartnerRecord {
  [field: string]: unknown;
  partner_id: string;
  account_id: string;
  name: string;
  document_id: string;
  created_at: string;
}

export interface SplitAgreementRecord {
  [field: string]: unknown;
  split_agreement_id: string;
  account_id: string;
  agreement_id: string;
  partner_id: string;
  created_at: string;
}

const hide = <T extends { account_id: string }>({ account_id: _account, ...rest }: T) => rest;
export const publicAgreement = (record: AgreementRecord) => hide(record);
export const publicPartner = (record: PartnerRecord) => hide(record);
export const publicSplitAgreement = (record: SplitAgreementRecord) => hide(record);

/** A record of the calling account, or NOT_FOUND (another account's is indistinguishable from none). */
export async function owned<T extends { account_id: string }>(
  tx: Pick<Transaction, 'get'>,
  collection: string,
  id: string,
  account: Account,
  what: string,
): Promise<T> {
  const record = (await tx.get(collection, id)) as unknown as T | undefined;
  if (!record || record.account_id !== account.account_id) throw appError('NOT_FOUND', `${what} ${id}`);
  return record;
}

/** Agreements, partners and split-reception agreements (INTERFACE.md §5, operations 1–3). */
export class CatalogService {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
  ) {}

  async createAgreement(
    account: Account,
    input: Pick<AgreementRecord, 'name' | 'currency_reference' | 'split' | 'payment_methods'>,
  ): Promise<AgreementRecord> {
    const record: AgreementRecord = {
      agreement_id: newId('agr'),
      account_id: account.account_id,
      ...pick(input, ['name', 'currency_reference', 'split', 'payment_methods']),
      created_at: this.now(account),
    };
    await this.store.transact((tx) => tx.insert('agreements', record.agreement_id, record));
    return record;
  }

  async createPartner(account: Account, input: Pick<PartnerRecord, 'name' | 'document_id'>): Promise<PartnerRecord> {
    const record: PartnerRecord = {
      partner_id: newId('ptn'),
      account_id: account.account_id,
      name: input.name,
      document_id: input.document_id,
      created_at: this.now(account),
    };
    await this.store.transact((tx) => tx.insert('partners', record.partner_id, record));
    return record;
  }

  async createSplitAgreement(
    account: Account,
    input: { agreement_id: string; partner_id: string },
  ): Promise<SplitAgreementRecord> {
    return this.store.transact(async (tx) => {
      const agreement = await owned<AgreementRecord>(tx, 'agreements', input.agreement_id, account, 'agreement');
      await owned<PartnerRecord>(tx, 'partners', input.partner_id, account, 'partner');
      if (!agreement.split) {
        throw appError('VALIDATION_FAILED', [
          { in: 'body', pointer: '/agreement_id', message: 'the agreement was created with split: false' },
        ]);
      }
      const linkKey = splitLinkKey(input.agreement_id, input.partner_id);
      if (await tx.get('split_links', linkKey))
        throw appError('ALREADY_EXISTS', 'the partner is already linked to this agreement');
      const record: SplitAgreementRecord = {
        split_agreement_id: newId('spl'),
        account_id: account.account_id,
        agreement_id: input.agreement_id,
        partner_id: input.partner_id,
        created_at: this.now(account),
      };
      tx.insert('split_agreements', record.split_agreement_id, record);
      tx.insert('split_links', linkKey, {
        account_id: account.account_id,
        agreement_id: input.agreement_id,
        partner_id: input.partner_id,
        split_agreement_id: record.split_agreement_id,
      });
      return record;
    });
  }

  private now(account: Account): string {
    return iso(accountNow(this.clock, account));
  }
}

function pick<T extends object, K extends keyof T>(value: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}

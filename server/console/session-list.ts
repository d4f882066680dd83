import type { Account } from '../accounts/account.js';
import { appError } from '../errors.js';
import type { SessionService } from '../sessions/session-service.js';
import type { SessionRecord } from '../sessions/session.js';
import type { Store } from '../store/store.js';

export interface SessionListQuery {
  limit: number;
  page: number;
  status?: string | undefined;
  accreditation?: string | undefined;
  idPrefix?: string | undefined;
}

/**
 * The console's list of an account's sessions: newest first, by status or
 * accreditation, or those whose id starts with a prefix (id order), each
 * through an index. Each is read through the session service, so due dates
 * apply as in a status read.
 */
export async function listConsoleSessions(
  store: Store,
  sessions: SessionService,
  account: Account,
  query: SessionListQuery,
): Promise<SessionRecord[]> {
  const { limit, page, status, accreditation, idPrefix } = query;
  const offset = (page - 1) * limit;
  let stored: SessionRecord[];
  if (idPrefix !== undefined) {
    if (status || accreditation)
      throw appError('VALIDATION_FAILED', [
        { in: 'query', pointer: '/id_prefix', message: 'id_prefix does not combine with status or accreditation' },
      ]);
    // The ids that start with it: a range of the (account, session_id) index.
    stored = await store.list<SessionRecord>('sessions', {
      where: { account_id: account.account_id },
      range: { field: 'session_id', min: idPrefix, max: `${idPrefix}\uffff` },
      orderBy: { field: 'session_id', direction: 'asc' },
      limit,
      offset,
    });
  } else {
    const where = {
      account_id: account.account_id,
      ...(status ? { status } : {}),
      ...(accreditation ? { accreditation_status: accreditation } : {}),
    };
    stored = await store.list<SessionRecord>('sessions', {
      where,
      orderBy: { field: 'created_at', direction: 'desc' },
      limit,
      offset,
    });
  }
  return Promise.all(stored.map((session) => sessions.read(account, session.session_id)));
}

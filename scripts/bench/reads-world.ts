import pg from 'pg';
import { orderKey } from '../../server/orders/order.js';
import { settlementKey } from '../../server/settlements/settlement.js';
import { indexDeclarations } from '../../server/index-declarations.js';
import { EmbeddedStore } from '../../server/store/embedded/embedded-store.js';
import { PgStore } from '../../server/store/postgres/pg-store.js';
import { createTableSql, ident, selectSql, tableLayout } from '../../server/store/postgres/pg-tables.js';
import { encodeJson, encodeKey } from '../../server/store/postgres/pg-text.js';
import type { Query, StoredRecord } from '../../server/store/store.js';
import { traceEntry } from '../../server/trace/trace.js';
import type { JsonAnswer } from '../../contracts/json-answer.js';

// The world the reads bench measures in: an account with a terminal, and its data seeded straight into either store at a size.

export interface ReadsWorld {
  token: string;
  consoleToken: string;
  accountId: string;
  merchantId: string;
  serial: string;
  /** The terminal's signing secret, for the settlement POSTs. */
  secret: string;
}

export async function register(url: string): Promise<ReadsWorld> {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(new URL(path, url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    return (await response.json()) as JsonAnswer;
  };
  const account = await post('/console/register', { email: 'reads@example.com', password: 'bench password' });
  const terminal = await post(
    `/api/v1/merchants/${account.merchant_id}/pos-terminals`,
    { serialNumber: 'READS-1' },
    account.key.token,
  );
  return {
    token: account.key.token,
    consoleToken: account.console_token,
    accountId: account.account_id,
    merchantId: account.merchant_id,
    serial: 'READS-1',
    secret: terminal.secret,
  };
}

/** The records: the account's own (2,000 of each kind), and `total` others spread over 500 merchants. */
function* records(world: ReadsWorld, total: number): Generator<[string, string, StoredRecord]> {
  const at = (i: number) => new Date(Date.parse('2026-01-01T00:00:00.000Z') + i * 1000).toISOString();
  const own = 2000;
  for (let i = 0; i < own + total; i += 1) {
    const mine = i < own;
    const merchant = mine ? world.merchantId : `mer_other${i % 500}`;
    const terminal = mine ? world.serial : `OTHER-${i % 500}`;
    const account = mine ? world.accountId : `acc_other${i % 500}`;
    const kind = mine ? i % 3 : i % 3;
    if (kind === 0 || mine) {
      const orderId = `o${i}`;
      yield [
        'orders',
        orderKey(merchant, orderId),
        {
          orderId,
          merchantId: merchant,
          terminal,
          amount: 100 + (i % 900),
          currency: 'USD',
          status: i % 4 ? 'PAID' : 'PENDING',
          createdAt: at(i),
          updatedAt: at(i),
          history: [],
          account_id: account,
        },
      ];
    }
    if (kind === 1 || mine) {
      const batchNumber = `B${String(i).padStart(7, '0')}`;
      yield [
        'settlements',
        settlementKey(terminal, batchNumber),
        {
          batchNumber,
          transactionCount: i % 90,
          closedAt: at(i),
          currencyReference: 'USD',
          terminal,
          debitBatch: `D${(i * 7919) % 1_000_003}`,
          merchantId: merchant,
          receivedAt: at(i),
        },
      ];
    }
    if (kind === 2 || mine) {
      const entry = traceEntry(account, i % 2 ? 'webhook.attempt' : 'session.created', at(i), {
        session_id: `ses_${i % 1000}`,
        status: 200,
        result: 'succeeded',
      });
      yield ['trace', entry.id, entry];
    }
  }
}

export async function seedLowdb(dir: string, world: ReadsWorld, total: number): Promise<void> {
  const store = await EmbeddedStore.open({ dir });
  let batch: Array<[string, string, StoredRecord]> = [];
  const flush = () =>
    store.transact((tx) => {
      for (const [c, id, v] of batch) tx.put(c, id, v);
    });
  for (const record of records(world, total)) {
    batch.push(record);
    if (batch.length === 10_000) {
      await flush();
      batch = [];
    }
  }
  if (batch.length > 0) await flush();
  await store.snapshot();
  await store.close();
}

/** With `explain`, prints the plans of the listed queries once seeded. */
export async function seedPostgres(url: string, world: ReadsWorld, total: number, explain = false): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const tables = new Set<string>();
  let rows: string[][] = [];
  const flush = async () => {
    const byTable = new Map<string, string[][]>();
    for (const row of rows) {
      const layout = tableLayout(row[0]!, indexDeclarations[row[0]!]);
      if (!tables.has(layout.table)) {
        await client.query(createTableSql(layout));
        tables.add(layout.table);
      }
      byTable.set(layout.table, [...(byTable.get(layout.table) ?? []), row]);
    }
    for (const [table, some] of byTable) {
      await client.query(
        `INSERT INTO ${ident(table)} (id, data) SELECT i, d::jsonb FROM unnest($1::text[], $2::text[]) AS t(i, d) ON CONFLICT DO NOTHING`,
        [some.map((r) => r[1]), some.map((r) => r[2])],
      );
    }
    rows = [];
  };
  for (const [c, id, v] of records(world, total)) {
    rows.push([c, encodeKey(id), encodeJson(v)]);
    if (rows.length === 5000) await flush();
  }
  if (rows.length > 0) await flush();
  for (const table of tables) await client.query(`ANALYZE ${ident(table)}`);
  await client.end();
  // A database that has served for a while has its declared indexes: make them before measuring.
  const store = await PgStore.open({ connectionString: url });
  store.declareIndexes(indexDeclarations);
  await store.indexesReady();
  await store.close();
  if (explain) {
    const explainer = new pg.Client({ connectionString: url });
    await explainer.connect();
    const plans: Array<[string, Query]> = [
      [
        'orders',
        {
          where: { merchantId: world.merchantId },
          orderBy: { field: 'createdAt', direction: 'desc' },
          limit: 20,
          offset: 0,
        },
      ],
      [
        'trace',
        { where: { account_id: world.accountId }, orderBy: { field: 'listed', direction: 'desc' }, limit: 100 },
      ],
    ];
    for (const [collection, query] of plans) {
      const sql = selectSql(tableLayout(collection, indexDeclarations[collection]), query);
      const { rows } = await explainer.query(`EXPLAIN ANALYZE ${sql.text}`, sql.values);
      process.stderr.write(
        `${collection}:\n${rows.map((row: Record<string, string>) => `  ${Object.values(row)[0]}`).join('\n')}\n`,
      );
    }
    await explainer.end();
  }
}

import t from 'tap';
import { runQuery } from '../query.js';
import { indexScore, RecordIndex } from './record-index.js';
import type { IndexDeclaration } from '../store.js';
import type { Query, StoredRecord } from '../store.js';

// The index against the scan it replaces (runQuery, the oracle): random
// records, random changes that move records between keys, and random
// queries of the declared shapes must answer exactly what the scan does.

let seed = 20261122;
const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)]!;

const merchants = ['m1', 'm2', 'm3'];
const statuses = ['PENDING', 'PAID', 'VOIDED'];
const times = Array.from({ length: 12 }, (_, i) => `2026-11-${String(10 + i).padStart(2, '0')}T10:00:00.000Z`);

function randomRecord(): StoredRecord {
  const record: Record<string, unknown> = { merchant: pick(merchants), status: pick(statuses) };
  if (random() < 0.9) record.at = pick(times);
  if (random() < 0.8) record.amount = Math.floor(random() * 20) - 5;
  if (random() < 0.1) record.status = null;
  return record;
}

const declarations: IndexDeclaration[] = [
  { equals: ['merchant'], order: { field: 'at', type: 'time' } },
  { equals: ['merchant', 'status'], order: { field: 'at', type: 'time' } },
  { equals: [], order: { field: 'amount', type: 'number' } },
  { equals: ['status'] },
];

function randomQuery(declaration: IndexDeclaration): Query {
  const where: Record<string, string | null> = {};
  for (const field of declaration.equals)
    where[field] = field === 'merchant' ? pick(merchants) : pick([...statuses, null]);
  if (random() < 0.2 && !declaration.equals.includes('status')) where.status = pick(statuses); // a field the index does not hold
  const query: Query = { where };
  const order = declaration.order?.field;
  if (order) {
    query.orderBy = { field: order, direction: random() < 0.5 ? 'asc' : 'desc' };
    if (random() < 0.5) {
      const values: Array<string | number> = order === 'amount' ? [-3, 0, 4, 9] : times;
      query.range = {
        field: order,
        ...(random() < 0.7 ? { min: pick(values) } : {}),
        ...(random() < 0.7 ? { max: pick(values) } : {}),
      };
    }
    if (random() < 0.6) query.limit = 1 + Math.floor(random() * 8);
    if (random() < 0.4) query.offset = Math.floor(random() * 6);
  }
  return query;
}

t.test(
  'every declared shape answers what the scan answers, through inserts, updates that move keys, and deletes',
  async (t) => {
    const records = new Map<string, StoredRecord>();
    const indexes = declarations.map((declaration) => new RecordIndex(declaration));
    const put = (id: string, record: StoredRecord) => {
      const previous = records.get(id);
      for (const index of indexes) {
        if (previous) index.remove(id, previous);
        index.add(id, record);
      }
      records.set(id, record);
    };
    const remove = (id: string) => {
      const previous = records.get(id);
      if (!previous) return;
      for (const index of indexes) index.remove(id, previous);
      records.delete(id);
    };
    let compared = 0;
    let mismatches = 0;
    for (let step = 0; step < 3000; step += 1) {
      const roll = random();
      const id = `r${Math.floor(random() * 400)}`;
      if (roll < 0.6) put(id, randomRecord());
      else if (roll < 0.8) remove(id);
      else {
        const index = pick(indexes);
        const query = randomQuery(index.declaration);
        if (indexScore(index.declaration, query) === null) continue;
        const expected = runQuery([...records.entries()], query);
        const { records: got, examined } = index.walk(query, (key) => records.get(key));
        compared += 1;
        const same = query.orderBy
          ? JSON.stringify(got) === JSON.stringify(expected)
          : new Set(got).size === got.length &&
            got.length === expected.length &&
            got.every((r) => expected.includes(r));
        if (!same) {
          mismatches += 1;
          if (mismatches <= 3)
            t.fail(
              `${JSON.stringify(query)} on ${JSON.stringify(index.declaration)}: got ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`,
            );
        }
        if (
          query.limit !== undefined &&
          !query.range &&
          Object.keys(query.where ?? {}).length === index.declaration.equals.length
        ) {
          t.ok(
            examined <= (query.offset ?? 0) + query.limit,
            `examined ${examined} for offset ${query.offset ?? 0} + limit ${query.limit}`,
          );
        }
      }
    }
    t.equal(mismatches, 0, `${compared} queries compared with the scan`);
    t.ok(compared > 300);
    for (const index of indexes) t.equal(index.size, records.size, 'every record in every index, once');
  },
);

import { BridgeError } from '../errors.js';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { journalFiles } from './durable-file.js';
import type { MoneyRecord } from './money-record.js';
import { bounded } from './bounded.js';

// What every dialect's bridge must not forget across a kill, kept the one
// way: the one request on the line (written before it goes out, so a
// restarted bridge establishes its outcome from the device before anything
// else is sent), the asks the device declined (not asked again by
// themselves), the batch counter and the close last carried out, and the
// records the server has not yet taken. A dialect adds only its device's
// parts (a Transbank POS's tickets, a ZVT terminal's receipts, a nexo
// terminal's transaction ids) to the same file, written whole and durably
// at every change; what it holds is bounded by the orders in flight and the
// open batch, never by history.
//
//   <state-dir>/<serial>/<file>     the journal (transbank.json, zvt.json, nexo.json)
//   <state-dir>/<serial>/sales.jsonl every payment, void and close as made
//                                    (never read back: the record a technician reads)

/** The request on the line, whatever the dialect: its kind names it in the log. */
export interface InFlightBase {
  kind: string;
  startedAt: string;
}

export interface JournalBase<InFlight extends InFlightBase, Declined extends { at: string }> {
  inFlight: InFlight | null;
  declined: Record<string, Declined>;
  /** Records for the server, oldest first: each leaves only once the server holds it. */
  outbox: MoneyRecord[];
  nextSeq: number;
  nextBatch: number;
  /** The close request (PendingClose.closeId) the device last carried out: the same request is never closed twice. */
  lastCloseId?: string;
}

/** The settlement's batch number, from the journal's durable counter. */
export const batchNumberOf = (counter: number) => `B${String(counter).padStart(4, '0')}`;

/** A money record without its number: the journal numbers it as it keeps it. */
export type UnnumberedRecord = MoneyRecord extends infer R ? (R extends MoneyRecord ? Omit<R, 'seq'> : never) : never;

export const EMPTY_JOURNAL_BASE = { inFlight: null, declined: {}, outbox: [], nextSeq: 1, nextBatch: 1 } as const;

export class DialectJournal<
  InFlight extends InFlightBase,
  Declined extends { at: string },
  Data extends JournalBase<InFlight, Declined>,
> {
  protected constructor(
    private readonly dir: string,
    private readonly file: string,
    protected data: Data,
  ) {}

  /** The journal as stored, for a dialect to lay over its empty one; undefined when there is none yet. */
  protected static async read<Stored>(dir: string, file: string): Promise<Partial<Stored> | undefined> {
    return (await journalFiles.readJson<Partial<Stored>>(join(dir, file))) ?? undefined;
  }

  get snapshot(): Readonly<Data> {
    return this.data;
  }

  get inFlight(): InFlight | null {
    return this.data.inFlight;
  }

  /** The next batch number, to journal with a close before it goes on the line. */
  get nextBatchNumber(): string {
    return batchNumberOf(this.data.nextBatch);
  }

  declined(key: string): Declined | undefined {
    return this.data.declined[key];
  }

  /** Before the request goes on the line. */
  async begin(inFlight: InFlight): Promise<void> {
    if (this.data.inFlight) throw new BridgeError('STATE_CONFLICT', `a ${this.data.inFlight.kind} is still in flight`);
    await this.write({ ...this.data, inFlight });
  }

  /** The request in flight did not happen, or its outcome is held for an operator: nothing more to establish. */
  async nothingInFlight(): Promise<void> {
    await this.write({ ...this.data, inFlight: null });
  }

  /** Not asked again by itself: the device declined it, or an operator discarded it. */
  async decline(key: string, declined: Declined): Promise<void> {
    await this.write({ ...this.data, inFlight: null, declined: bounded({ ...this.data.declined, [key]: declined }) });
  }

  async clearDeclined(key: string): Promise<void> {
    const { [key]: _gone, ...declined } = this.data.declined;
    await this.write({ ...this.data, declined });
  }

  /** The server holds the record (or an operator discarded it): it leaves the outbox. */
  async delivered(seq: number): Promise<void> {
    await this.write({ ...this.data, outbox: this.data.outbox.filter((record) => record.seq !== seq) });
  }

  /**
   * The request in flight ended in a money record: the record is numbered
   * and queued for the server, nothing is in flight any more, and the
   * device's own parts change with it, in one write.
   */
  protected async recorded(record: UnnumberedRecord, parts: Partial<Data> = {}): Promise<MoneyRecord> {
    const numbered = { ...record, seq: this.data.nextSeq } as MoneyRecord;
    await this.write({
      ...this.data,
      ...parts,
      inFlight: null,
      outbox: [...this.data.outbox, numbered],
      nextSeq: this.data.nextSeq + 1,
    });
    return numbered;
  }

  /** A payment the device made: its record queued for the server, the device's parts changed with it, then the technician's line. */
  protected async paymentMade(
    payment: { orderId: string; amount: number; currency: string; authorizationCode: string; paidAt: string },
    parts: Partial<Data>,
  ): Promise<void> {
    const { orderId, amount, currency, authorizationCode, paidAt } = payment;
    await this.recorded({ kind: 'payment', orderId, amount, currency, authorizationCode, paidAt }, parts);
    await this.forTechnician({ event: 'payment', ...payment });
  }

  /** A close carried out: its settlement queued, the batch counter moved on, the close remembered. */
  protected async closedBatch(
    record: Omit<Extract<UnnumberedRecord, { kind: 'settlement' }>, 'debitBatch'>,
    closeId: string,
    parts: Partial<Data> = {},
  ): Promise<MoneyRecord> {
    return this.recorded(
      { ...record, debitBatch: `D${record.batchNumber.slice(1)}` },
      { ...parts, nextBatch: this.data.nextBatch + 1, lastCloseId: closeId },
    );
  }

  protected async write(next: Data): Promise<void> {
    await journalFiles.writeDurably(join(this.dir, this.file), `${JSON.stringify(next)}\n`);
    this.data = next;
  }

  /** After the journal: a kill between the two loses a line of this record, never the money. */
  protected async forTechnician(entry: Record<string, unknown>): Promise<void> {
    await journalFiles.appendDurably(join(this.dir, 'sales.jsonl'), `${JSON.stringify(entry)}\n`);
  }
}

/**
 * Whether a dialect's journal in `dir` holds a charge of `orderId` the
 * device declined (keyed `sale:` by a POS Integrado, `payment:` by the
 * terminals): what svc-terminal retry checks, whatever the dialect.
 */
export async function declinedCharge(dir: string, orderId: string): Promise<boolean> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return false;
  }
  for (const name of names.filter((file) => file.endsWith('.json'))) {
    const journal = await journalFiles
      .readJson<{ declined?: Record<string, unknown> }>(join(dir, name))
      .catch(() => null);
    const declined = journal?.declined;
    if (declined && (declined[`sale:${orderId}`] || declined[`payment:${orderId}`])) return true;
  }
  return false;
}

import { BridgeError } from '../errors.js';
import { createHash } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { AskKind } from '../protocol/ask-kind.js';
import type { MoneyRecord } from './money-record.js';
import { storedRecord } from './stored-record.js';
import { shellQuote } from '../../contracts/common/shell-quote.js';
import { journalFiles } from './durable-file.js';

// What a bridge must not forget across restarts, per terminal, under
// --state: which orders it asked the device to charge or void (so a
// restarted bridge never asks twice: a second ask could charge a customer
// twice), and the records it holds because the server has a different
// record in their place. A held record stays unconfirmed on the device
// until an operator decides (svc-terminal held): resend it, or discard it
// with a reason that is kept in released.jsonl.
//
//   <state-dir>/<serial>/asked.json
//   <state-dir>/<serial>/held/<key>.json            the record, why, the server's answer
//   <state-dir>/<serial>/held/<key>.decision.json   the operator's decision, read by the bridge
//   <state-dir>/<serial>/released.jsonl             every decision carried out
//   <state-dir>/<serial>/close.json                 a batch close asked for and not yet answered
//   <state-dir>/<serial>/last-close.json            the last close carried out
//   <state-dir>/<serial>/held-asks/<key>.json       asks whose outcome the device cannot say, and decisions
//   <state-dir>/<serial>/retry/<key>.json           a declined sale a cashier asked to send again (transbank)

export interface HeldRecord {
  key: string;
  record: MoneyRecord;
  /** The record in words, as the log says it. */
  message: string;
  reason: string;
  server: { status: number; code?: string; message?: string };
  heldAt: string;
}

/**
 * An ask whose outcome the bridge cannot establish: it was recorded as asked,
 * the order is still open on the server, and the device cannot say whether
 * it got it (it does not answer 0150). Asking again could charge a customer
 * twice; not asking could leave one at the counter. An operator decides.
 */
export interface HeldAsk {
  key: string;
  kind: AskKind;
  orderId: string;
  reason: string;
  heldAt: string;
}

/** A batch close asked for and not yet answered by the device: sent again, with the same id, until it is. */
export interface PendingClose {
  closeId: string;
  requestedAt: string;
}

export interface Decision {
  action: 'resend' | 'discard';
  reason?: string;
  decidedAt: string;
}

/** A held ask's key: its kind and order, the order id made safe for a file name. */
export const askKey = (kind: AskKind, orderId: string) =>
  `ask-${kind}-${orderId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64)}-${createHash('sha256').update(orderId).digest('hex').slice(0, 8)}`;

/** Most asked orders kept; the oldest go first (an order asked that long ago is no longer PENDING). */
const ASKED_LIMIT = 10_000;

export class BridgeState {
  private constructor(
    readonly stateDir: string,
    readonly serial: string,
    private asked: Map<string, string>,
  ) {}

  /** This terminal's directory under the state directory. */
  get dir(): string {
    return join(this.stateDir, encodeURIComponent(this.serial));
  }

  static async open(stateDir: string, serial: string): Promise<BridgeState> {
    const asked =
      (await journalFiles.readJson<Record<string, string>>(join(stateDir, encodeURIComponent(serial), 'asked.json'))) ??
      {};
    return new BridgeState(stateDir, serial, new Map(Object.entries(asked)));
  }

  /** The held command for this terminal, ready to paste. */
  heldCommand(): string {
    return `svc-terminal held --state ${shellQuote(this.stateDir)} --serial ${shellQuote(this.serial)}`;
  }

  hasAsked(key: string): boolean {
    return this.asked.has(key);
  }

  /** Remembers, durably, that the device is being asked: called before the request goes on the line. */
  async markAsked(key: string, at: string): Promise<void> {
    this.asked.set(key, at);
    while (this.asked.size > ASKED_LIMIT) this.asked.delete(this.asked.keys().next().value!);
    await journalFiles.writeDurably(join(this.dir, 'asked.json'), JSON.stringify(Object.fromEntries(this.asked)));
  }

  async hold(held: HeldRecord): Promise<void> {
    await journalFiles.writeDurably(this.heldPath(held.key), `${JSON.stringify(held, null, 2)}\n`);
  }

  async held(key: string): Promise<HeldRecord | undefined> {
    const held = await journalFiles.readJson<HeldRecord>(this.heldPath(key));
    return held && { ...held, record: storedRecord(held.record) };
  }

  decision(key: string): Promise<Decision | undefined> {
    return journalFiles.readJson<Decision>(this.decisionPath(key));
  }

  listHeld(): Promise<Array<HeldRecord & { decision?: Decision }>> {
    return this.listWithDecisions<HeldRecord>('held', (key) => this.decision(key));
  }

  /** Written by the operator's command; carried out by the bridge at its next cycle. */
  async decide(key: string, decision: Decision): Promise<void> {
    if (!(await this.held(key))) throw new BridgeError('STATE_CONFLICT', `no held record ${key}`);
    await journalFiles.writeDurably(this.decisionPath(key), `${JSON.stringify(decision)}\n`);
  }

  /** The decision was carried out: the hold goes, and the audit log keeps what was decided. */
  async release(held: HeldRecord, decision: Decision, outcome: string): Promise<void> {
    await journalFiles.appendDurably(
      join(this.dir, 'released.jsonl'),
      `${JSON.stringify({ ...held, decision, outcome, releasedAt: new Date().toISOString() })}\n`,
    );
    await journalFiles.removeDurably(this.decisionPath(held.key));
    await journalFiles.removeDurably(this.heldPath(held.key));
  }

  /** Journals a batch close before anything else happens: a kill after this still closes, once. */
  async requestClose(close: PendingClose): Promise<void> {
    if (await this.pendingClose()) return; // one close at a time: the one asked first carries the id
    await journalFiles.writeDurably(join(this.dir, 'close.json'), `${JSON.stringify(close)}\n`);
  }

  pendingClose(): Promise<PendingClose | undefined> {
    return journalFiles.readJson<PendingClose>(join(this.dir, 'close.json'));
  }

  /** The close was carried out: remembered as the last one (a missed daily close is judged by it), and no longer pending. */
  async closeDone(close: PendingClose, doneAt: string): Promise<void> {
    await journalFiles.writeDurably(join(this.dir, 'last-close.json'), `${JSON.stringify({ ...close, doneAt })}\n`);
    await journalFiles.removeDurably(join(this.dir, 'close.json'));
  }

  /** The last close asked for: the pending one, or the last carried out. */
  async lastCloseAsked(): Promise<PendingClose | undefined> {
    return (await this.pendingClose()) ?? journalFiles.readJson<PendingClose>(join(this.dir, 'last-close.json'));
  }

  async holdAsk(held: HeldAsk): Promise<void> {
    await journalFiles.writeDurably(this.askPath(held.key), `${JSON.stringify(held, null, 2)}\n`);
  }

  heldAsk(key: string): Promise<HeldAsk | undefined> {
    return journalFiles.readJson<HeldAsk>(this.askPath(key));
  }

  askDecision(key: string): Promise<Decision | undefined> {
    return journalFiles.readJson<Decision>(this.askPath(key, '.decision'));
  }

  listHeldAsks(): Promise<Array<HeldAsk & { decision?: Decision }>> {
    return this.listWithDecisions<HeldAsk>('held-asks', (key) => this.askDecision(key));
  }

  /** What a held directory keeps, oldest key first, each with the operator's decision if one was made. */
  private async listWithDecisions<T extends { key: string }>(
    subdir: string,
    decisionFor: (key: string) => Promise<Decision | undefined>,
  ): Promise<Array<T & { decision?: Decision }>> {
    const names = await readdir(join(this.dir, subdir)).catch(() => [] as string[]);
    const held = [];
    for (const name of names.filter((each) => /^[^.]+\.json$/.test(each)).sort()) {
      const entry = await journalFiles.readJson<T>(join(this.dir, subdir, name));
      if (!entry) continue;
      const decision = await decisionFor(entry.key);
      held.push({ ...entry, ...(decision ? { decision } : {}) });
    }
    return held;
  }

  /** Whether KEY names a held record or a held ask: the operator's decision goes to whichever it is. */
  async decideAny(key: string, decision: Decision): Promise<void> {
    if (await this.heldAsk(key))
      return void (await journalFiles.writeDurably(this.askPath(key, '.decision'), `${JSON.stringify(decision)}\n`));
    await this.decide(key, decision);
  }

  /** A cashier's "try again" for a sale the POS declined (svc-terminal retry ORDER): carried out by the bridge at its next cycle. */
  async requestRetry(orderId: string, at: string): Promise<void> {
    await journalFiles.writeDurably(this.retryPath(orderId), `${JSON.stringify({ orderId, at })}\n`);
  }

  async retryRequested(orderId: string): Promise<boolean> {
    return (await journalFiles.readJson(this.retryPath(orderId))) !== undefined;
  }

  async retryTaken(orderId: string): Promise<void> {
    await journalFiles.removeDurably(this.retryPath(orderId));
  }

  private retryPath(orderId: string): string {
    return join(this.dir, 'retry', `${askKey('charge', orderId)}.json`);
  }

  async releaseAsk(held: HeldAsk, decision: Decision, outcome: string): Promise<void> {
    await journalFiles.appendDurably(
      join(this.dir, 'released.jsonl'),
      `${JSON.stringify({ ...held, decision, outcome, releasedAt: new Date().toISOString() })}\n`,
    );
    await journalFiles.removeDurably(this.askPath(held.key, '.decision'));
    await journalFiles.removeDurably(this.askPath(held.key));
  }

  private askPath(key: string, suffix = ''): string {
    return join(this.dir, 'held-asks', `${key}${suffix}.json`);
  }

  private heldPath(key: string): string {
    return join(this.dir, 'held', `${key}.json`);
  }

  private decisionPath(key: string): string {
    return join(this.dir, 'held', `${key}.decision.json`);
  }
}

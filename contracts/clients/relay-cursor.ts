// The relay client's cursor: the last position of the account's relay
// sequence up to which every delivery reached the local receiver with a
// 2xx. Positions are dense, so a gap (a delivery not yet seen, or one the
// receiver refused) holds the cursor until it is filled: what the relay
// resumes after the cursor is then everything the client may have missed.

import type { ResumeMessage } from '../relay-messages.js';

export class RelayCursor {
  private readonly acknowledged = new Set<number>();

  constructor(
    /** The position kept from an earlier run, or null for a first connection. */
    public position: number | null,
    private readonly saved: (position: number) => void = () => undefined,
  ) {}

  /** Takes the server's word: its cursor, and the positions it vouches for up to `up_to`. */
  resumed(message: ResumeMessage): void {
    this.acknowledged.clear();
    const owed = new Set([...message.resending, ...message.pending]);
    for (let position = message.cursor + 1; position <= message.up_to; position += 1)
      if (!owed.has(position)) this.acknowledged.add(position);
    this.advance(message.cursor, true);
  }

  /** The local receiver answered `status` to the delivery at `position`. */
  answered(position: number, status: number): void {
    // Before the first resume nothing is kept (the resume starts afresh); at or below the cursor nothing is owed.
    if (status < 200 || status >= 300 || this.position === null || position <= this.position) return;
    this.acknowledged.add(position);
    this.advance(this.position, false);
  }

  /** Answers held behind a gap: 2xx past a position not yet answered. */
  get waiting(): number {
    return this.acknowledged.size;
  }

  private advance(from: number, changed: boolean): void {
    let position = from;
    while (this.acknowledged.delete(position + 1)) {
      position += 1;
      changed = true;
    }
    this.position = position;
    if (changed) this.saved(position);
  }
}

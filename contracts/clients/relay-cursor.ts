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
    this.position = message.cursor;
    this.advance(true);
  }

  /** The local receiver answered `status` to the delivery at `position`. */
  answered(position: number, status: number): void {
    if (status < 200 || status >= 300 || this.position === null || position <= this.position) return;
    this.acknowledged.add(position);
    this.advance(false);
  }

  private advance(changed: boolean): void {
    if (this.position === null) return;
    while (this.acknowledged.delete(this.position + 1)) {
      this.position += 1;
      changed = true;
    }
    if (changed) this.saved(this.position);
  }
}

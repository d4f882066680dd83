// What an attempt keeps of the receiver's answer: its first 2 KiB as text,
// enough to read why a receiver refused (an error message, a stack trace's
// first lines) without a large answer filling the trace.

export const ANSWER_KEPT_BYTES = 2048;

/** Collects the start of an answer's body as it streams in. */
export class AnswerExcerpt {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  private cut = false;

  add(chunk: Buffer): void {
    if (this.kept >= ANSWER_KEPT_BYTES) {
      this.cut = this.cut || chunk.length > 0;
      return;
    }
    const room = ANSWER_KEPT_BYTES - this.kept;
    this.chunks.push(chunk.subarray(0, room));
    this.kept += Math.min(room, chunk.length);
    if (chunk.length > room) this.cut = true;
  }

  /** The kept text; a cut one says so at its end. A multi-byte character cut in two shows as a replacement character. */
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8') + (this.cut ? ' [cut at 2 KiB]' : '');
  }
}

/** An answer's body given as text by someone else (a relay client): bounded the same way. */
export function boundedAnswer(body: unknown): string | undefined {
  if (typeof body !== 'string') return undefined;
  const excerpt = new AnswerExcerpt();
  excerpt.add(Buffer.from(body, 'utf8'));
  return excerpt.text();
}

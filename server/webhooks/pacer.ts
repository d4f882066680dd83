/**
 * A token bucket on real time: at most `perSecond` starts a second, with a
 * burst of a tenth of a second's worth. Webhook attempts take a token each,
 * so a backlog drains at a steady rate that leaves the event loop headroom
 * for API requests. (The retry ladder runs on the injectable clock; this
 * only spaces out work that is already due.)
 */
export class Pacer {
  private tokens: number;
  private last = performance.now();
  private readonly burst: number;

  constructor(private readonly perSecond: number) {
    this.burst = Math.max(1, Math.ceil(perSecond / 10));
    this.tokens = this.burst;
  }

  async take(): Promise<void> {
    for (;;) {
      const now = performance.now();
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.perSecond) / 1000);
      this.last = now;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.max(1, ((1 - this.tokens) * 1000) / this.perSecond)));
    }
  }
}

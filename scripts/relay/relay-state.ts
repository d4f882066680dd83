import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

// Where svc-relay keeps its cursor between runs: a small JSON file, one per
// simulator and token (so two accounts, or a sandbox and a laptop server,
// never share one). Losing it only means resending more: each delivery
// keeps its idempotency-key, so a receiver can tell a repeat.

/** The default state file for a base URL and token: named by a hash of both, never by the token itself. */
export function defaultStateFile(baseUrl: string, token: string, env: NodeJS.ProcessEnv = process.env): string {
  const root = env.XDG_STATE_HOME || join(homedir(), '.local', 'state');
  const name = createHash('sha256')
    .update(`${new URL(baseUrl).origin}\n${token}`)
    .digest('hex')
    .slice(0, 16);
  return join(root, 'svc-relay', `${name}.json`);
}

/** The kept cursor; none (a first connection) when the file is absent, or unreadable, said so. */
export function readCursor(file: string): { position: number | null } | { position: null; warning: string } {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { position: null };
    return { position: null, warning: `cannot read ${file} (${(error as Error).message}); starting without a cursor` };
  }
  try {
    const { cursor } = JSON.parse(text) as { cursor?: unknown };
    if (Number.isInteger(cursor) && (cursor as number) >= 0) return { position: cursor as number };
  } catch {
    // said below
  }
  return { position: null, warning: `${file} holds no cursor; starting without one` };
}

/** Keeps the cursor: a whole file or the previous one, never half of one (written aside, then renamed). */
export function saveCursor(file: string, position: number): void {
  mkdirSync(dirname(file), { recursive: true });
  const aside = `${file}.${process.pid}.tmp`;
  writeFileSync(aside, `${JSON.stringify({ cursor: position, saved_at: new Date().toISOString() })}\n`);
  renameSync(aside, file);
}

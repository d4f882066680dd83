import { readFileSync } from 'node:fs';

// When a long-running command stops: the signals a terminal or a supervisor
// sends, and whoever started it going away. `npx svc-terminal …` runs the
// command as node under a shell under npm; killing npx ends npm alone, and
// the command would run on as an orphan, holding its port. An orphan is
// re-parented, so a change in the command's parent, or in its parent's
// parent (the shell between npm and node is orphaned instead when npm is
// killed outright), means its starter is gone. A command meant to outlive
// its starter is started detached (setsid -f, a service manager): its
// ancestry is then the same from the start, and nothing changes.

/** The process's parent and its parent's parent, as far as they are known (/proc on Linux; else the parent). */
export function ancestry(): number[] {
  const parentOf = (pid: number): number | undefined => {
    try {
      // The command name is in parentheses and may hold spaces: the fields after it are fixed.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    } catch {
      return undefined;
    }
  };
  const parent = process.ppid;
  const grandparent = parent > 1 ? parentOf(parent) : undefined;
  return grandparent === undefined ? [parent] : [parent, grandparent];
}

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Calls `stop` once, on the first stop signal or when the process's
 * ancestry is no longer the one it started under (checked every
 * `everyMs`). Returns a function that stops watching.
 */
export function onStopRequest(
  stop: (why: string) => void,
  { everyMs = 500, lineage = ancestry }: { everyMs?: number; lineage?: () => number[] } = {},
): () => void {
  let done = false;
  const once = (why: string) => {
    if (done) return;
    done = true;
    stop(why);
  };
  const handlers = STOP_SIGNALS.map((signal) => {
    const handler = () => once(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  const first = lineage().join(' ');
  const watch = setInterval(() => {
    if (lineage().join(' ') !== first) once('its parent went away');
  }, everyMs);
  watch.unref();
  return () => {
    clearInterval(watch);
    for (const [signal, handler] of handlers) process.off(signal, handler);
  };
}

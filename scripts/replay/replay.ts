import { readFile } from 'node:fs/promises';
import type { Settlement } from '../../contracts/pos-types.js';
import { PosClient } from '../../contracts/clients/pos-client.js';

export type ReplayOutcome = 'created' | 'replayed' | 'conflict' | 'rejected';

export interface ReplayItemResult {
  file: string;
  index: number;
  batchNumber: string;
  outcome: ReplayOutcome;
  status?: number;
  reason?: string;
  /** What the batch file says this settlement is there to show, when not a plain success. */
  intended?: Intended;
}

/** A settlement its file sends on purpose to be refused: a conflict to demonstrate, say. */
export interface Intended {
  outcome: ReplayOutcome;
  why: string;
}

interface BatchItem {
  file: string;
  index: number;
  settlement: Settlement;
  intended?: Intended;
}

const outcomes: readonly ReplayOutcome[] = ['created', 'replayed', 'conflict', 'rejected'];

/** The file's `intended` list, checked: an index of its settlements, an outcome, a reason. */
function intendedOf(file: string, data: { intended?: unknown }, count: number): Map<number, Intended> {
  const byIndex = new Map<number, Intended>();
  if (data.intended === undefined) return byIndex;
  if (!Array.isArray(data.intended)) throw new Error(`${file}: "intended" is a list of { index, outcome, why }`);
  for (const entry of data.intended as Array<{ index?: unknown; outcome?: unknown; why?: unknown }>) {
    const { index, outcome, why } = entry ?? {};
    if (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= count)
      throw new Error(
        `${file}: "intended" names settlement ${String(index)}, which the file does not have (0 to ${count - 1})`,
      );
    if (!outcomes.includes(outcome as ReplayOutcome))
      throw new Error(`${file}: "intended" outcome of #${String(index)} is one of ${outcomes.join(', ')}`);
    if (typeof why !== 'string' || !why) throw new Error(`${file}: "intended" #${String(index)} says why`);
    byIndex.set(index as number, { outcome: outcome as ReplayOutcome, why });
  }
  return byIndex;
}

/** Whether a result counts as a failure: refused when nothing said it would be, or other than its file intended. */
export const failed = (result: ReplayItemResult): boolean =>
  result.intended
    ? result.outcome !== result.intended.outcome
    : result.outcome === 'conflict' || result.outcome === 'rejected';

export interface ReplayOptions {
  baseUrl: string;
  terminal: string;
  secret: string;
  files: string[];
  /** One line per item, and the summary. */
  out: (line: string) => void;
  /** Called after each item: done of total. */
  progress?: (done: number, total: number) => void;
  fetch?: typeof fetch;
  now?: () => number;
}

/** The settlements of the batch files, their `terminal` set to the one replayed as. */
export async function loadBatches(files: string[], terminal: string): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  for (const file of files) {
    let data: { settlements?: unknown; intended?: unknown };
    try {
      data = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`, { cause: error });
    }
    if (!Array.isArray(data.settlements)) throw new Error(`${file}: expected { "settlements": [...] }`);
    const intended = intendedOf(file, data, data.settlements.length);
    data.settlements.forEach((settlement: Settlement, index: number) => {
      const purpose = intended.get(index);
      items.push({ file, index, settlement: { ...settlement, terminal }, ...(purpose ? { intended: purpose } : {}) });
    });
  }
  return items;
}

/**
 * Signs and sends every settlement of the files as terminal `terminal`
 * would, one after another, and says what became of each: created,
 * replayed (the server already had it), conflict (409: the same batch
 * number with other fields), or rejected with the reason. Running the same
 * files again reports replays, never duplicates. Exit code 1 when a
 * settlement was refused and its file did not intend it, or when one
 * its file meant to be refused was not.
 */
export async function replayBatches(
  options: ReplayOptions,
): Promise<{ results: ReplayItemResult[]; exitCode: number }> {
  const client = new PosClient({
    baseUrl: options.baseUrl,
    serialNumber: options.terminal,
    secret: options.secret,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  });
  const items = await loadBatches(options.files, options.terminal);
  const results: ReplayItemResult[] = [];
  for (const [done, { file, index, settlement, intended }] of items.entries()) {
    let result: ReplayItemResult;
    try {
      const response = await client.notifySettlement(settlement);
      const outcome: ReplayOutcome =
        response.status === 200
          ? /already registered/.test(response.body.detail ?? '')
            ? 'replayed'
            : 'created'
          : response.status === 409
            ? 'conflict'
            : 'rejected';
      result = {
        file,
        index,
        batchNumber: settlement.batchNumber,
        outcome,
        status: response.status,
        ...(outcome === 'conflict' || outcome === 'rejected'
          ? { reason: `${response.body.code ?? response.status}: ${response.body.message ?? ''}` }
          : {}),
      };
    } catch (error) {
      result = {
        file,
        index,
        batchNumber: settlement.batchNumber,
        outcome: 'rejected',
        reason: `not sent: ${(error as Error).message}`,
      };
    }
    if (intended) result.intended = intended;
    results.push(result);
    const purpose = !intended
      ? ''
      : result.outcome === intended.outcome
        ? ` (intended: ${intended.why})`
        : ` (NOT AS INTENDED: the file expects ${intended.outcome}, because ${intended.why})`;
    options.out(
      `${result.outcome.padEnd(8)} ${result.batchNumber} (${file} #${index})${result.reason ? ` ${result.reason}` : ''}${purpose}`,
    );
    options.progress?.(done + 1, items.length);
    // A signature refused is every signature refused: the terminal is unknown here or the secret is not its own.
    if (result.status === 401 && /^SIGNATURE_INVALID/.test(result.reason ?? '')) {
      options.out(
        `stopped: the server refuses terminal ${options.terminal}'s signature (401 SIGNATURE_INVALID): either ${options.terminal} is not provisioned on ${options.baseUrl} (the server does not say which, by design) or the secret given is not its own. Provision it (--merchant-id M with SVC_TOKEN does, and uses its new secret) or give the secret shown when it was provisioned (--secret-file FILE or SVC_TERMINAL_SECRET); ${items.length - done - 1} settlement(s) not sent`,
      );
      return { results, exitCode: 1 };
    }
  }
  const count = (outcome: ReplayOutcome) => results.filter((r) => r.outcome === outcome).length;
  const asIntended = results.filter((r) => r.intended && !failed(r)).length;
  const failures = results.filter(failed).length;
  options.out(
    `${results.length} settlements: ${count('created')} created, ${count('replayed')} replayed, ${plural(count('conflict'), 'conflict')}, ${count('rejected')} rejected` +
      (asIntended ? `; ${asIntended} refused as their file intended` : '') +
      (failures ? `; ${failures} not as expected` : ''),
  );
  return { results, exitCode: failures > 0 ? 1 : 0 };
}

/** `1 conflict`, `2 conflicts`. */
const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

import { readFile } from 'node:fs/promises';
import type { Settlement } from '../../contracts/pos-types.js';
import { PosClient } from '../../contracts/clients/pos-client.js';

export type Outcome = 'created' | 'replayed' | 'conflict' | 'rejected';

export interface ItemResult {
  file: string;
  index: number;
  batchNumber: string;
  outcome: Outcome;
  status?: number;
  reason?: string;
}

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
export async function loadBatches(files: string[], terminal: string): Promise<Array<{ file: string; index: number; settlement: Settlement }>> {
  const items: Array<{ file: string; index: number; settlement: Settlement }> = [];
  for (const file of files) {
    let data: { settlements?: unknown };
    try {
      data = JSON.parse(await readFile(file, 'utf8'));
    } catch (error) {
      throw new Error(`${file}: ${(error as Error).message}`);
    }
    if (!Array.isArray(data.settlements)) throw new Error(`${file}: expected { "settlements": [...] }`);
    data.settlements.forEach((settlement: Settlement, index: number) => items.push({ file, index, settlement: { ...settlement, terminal } }));
  }
  return items;
}

/**
 * Signs and sends every settlement of the files as terminal `terminal`
 * would, one after another, and says what became of each: created,
 * replayed (the server already had it), conflict (409: the same batch
 * number with other fields), or rejected with the reason. Running the same
 * files again reports replays, never duplicates.
 */
export async function replayBatches(options: ReplayOptions): Promise<{ results: ItemResult[]; exitCode: number }> {
  const client = new PosClient({ baseUrl: options.baseUrl, serialNumber: options.terminal, secret: options.secret, ...(options.fetch ? { fetch: options.fetch } : {}), ...(options.now ? { now: options.now } : {}) });
  const items = await loadBatches(options.files, options.terminal);
  const results: ItemResult[] = [];
  for (const [done, { file, index, settlement }] of items.entries()) {
    let result: ItemResult;
    try {
      const response = await client.notifySettlement(settlement);
      const outcome: Outcome =
        response.status === 200 ? (/already registered/.test(response.body.detail ?? '') ? 'replayed' : 'created') : response.status === 409 ? 'conflict' : 'rejected';
      result = { file, index, batchNumber: settlement.batchNumber, outcome, status: response.status, ...(outcome === 'conflict' || outcome === 'rejected' ? { reason: `${response.body.code ?? response.status}: ${response.body.message ?? ''}` } : {}) };
    } catch (error) {
      result = { file, index, batchNumber: settlement.batchNumber, outcome: 'rejected', reason: `not sent: ${(error as Error).message}` };
    }
    results.push(result);
    options.out(`${result.outcome.padEnd(8)} ${result.batchNumber} (${file} #${index})${result.reason ? ` ${result.reason}` : ''}`);
    options.progress?.(done + 1, items.length);
  }
  const count = (outcome: Outcome) => results.filter((r) => r.outcome === outcome).length;
  options.out(`${results.length} settlements: ${count('created')} created, ${count('replayed')} replayed, ${count('conflict')} conflicts, ${count('rejected')} rejected`);
  return { results, exitCode: count('conflict') + count('rejected') > 0 ? 1 : 0 };
}

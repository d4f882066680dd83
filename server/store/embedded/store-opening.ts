import { readdir, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Low } from 'lowdb';
import { appError } from '../../errors.js';
import type { Logger } from '../../log.js';
import { listJournalFiles, SNAPSHOT_FILE, unchecksummedSnapshotDisagreement } from './journal-files.js';
import { replayJournal } from './journal-replay.js';
import { JournalWriter } from './journal-writer.js';
import { MemoryState, type UnindexedQueries } from './memory-state.js';
import { SnapshotFileAdapter, type SnapshotData, type SnapshotPacing } from './snapshot-adapter.js';

// What a start finds in a locked data directory: the snapshot loaded into
// memory, the journal after it replayed, and the writer that goes on from
// there. The store (embedded-store.ts) decides what to do with it.

export interface EmbeddedStoreOptions {
  dir: string;
  /**
   * A snapshot is taken once the journal on disk since the last one exceeds
   * max(this, size of the last snapshot): compaction work stays proportional
   * to the writes, however large the state. The journal is counted on disk,
   * not as written by this process, so restarts never postpone compaction.
   * Default 16 MiB.
   */
  snapshotMinJournalBytes?: number;
  /** How snapshot writing shares the event loop with requests; default SNAPSHOT_LOOP_SHARE. */
  snapshotPacing?: SnapshotPacing;
  /** 'throw' in tests: a list of a declared collection that no declared index serves fails. */
  unindexedQueries?: UnindexedQueries;
  log?: Logger;
}

export interface OpenStats {
  records: number;
  snapshotSeq: number;
  replayedEntries: number;
  lastSeq: number;
  /** Bytes of journal on disk at start-up, after the snapshot. */
  journalBytes: number;
}

/** The directory's state at start-up; throws STORE_CORRUPT when the snapshot and the journal disagree. */
export async function loadDirectory(dir: string, options: EmbeddedStoreOptions, log: Logger) {
  const snapshotPath = join(dir, SNAPSHOT_FILE);
  // A temp file left behind is a snapshot a kill cut short.
  const interruptedSnapshot = (await removeStaleTempFiles(dir, snapshotPath)) > 0;

  const state = new MemoryState(options.unindexedQueries);
  const snapshotFiles = new SnapshotFileAdapter(snapshotPath, options.snapshotPacing);
  const snapshots = new Low<SnapshotData | null>(snapshotFiles, null);
  await snapshots.read();
  const snapshotSeq = snapshots.data?.seq ?? 0;
  const unchecksummedSnapshot = snapshots.data?.unchecksummed === true;
  if (unchecksummedSnapshot) {
    const disagreement = unchecksummedSnapshotDisagreement(snapshotSeq, await listJournalFiles(dir));
    if (disagreement) throw appError('STORE_CORRUPT', snapshotPath, 1, disagreement);
  }
  state.load(snapshots.data?.entries ?? []);
  snapshots.data = null; // the records now live in `state`

  const replay = await replayJournal(dir, snapshotSeq, (entry) => state.apply(entry.ops));
  if (replay.droppedTornLine)
    log.warn(
      'dropped a torn last journal line (a write cut short by a crash or a full disk; a batch is acknowledged only once written whole, so never acknowledged)',
      replay.droppedTornLine,
    );
  const writer = await JournalWriter.open(dir, replay.lastSeq + 1, replay.continuable);
  const snapshotBytes = await stat(snapshotPath).then(
    (s) => s.size,
    () => 0,
  );
  const openStats = {
    records: state.totalRecords,
    snapshotSeq,
    replayedEntries: replay.applied,
    lastSeq: replay.lastSeq,
    journalBytes: replay.journalBytes,
  };
  log.info('store opened', { dir, ...openStats });
  return {
    state,
    writer,
    snapshots,
    snapshotFiles,
    snapshotPath,
    snapshotBytes,
    replay,
    unchecksummedSnapshot,
    interruptedSnapshot,
    openStats: openStats satisfies OpenStats,
  };
}

/** Removes snapshot temp files earlier runs left; answers how many there were. */
async function removeStaleTempFiles(dir: string, snapshotPath: string): Promise<number> {
  const names = await readdir(dir);
  const stale = names.filter((name) => SnapshotFileAdapter.isTempFile(name, snapshotPath));
  await Promise.all(stale.map((name) => unlink(join(dir, name))));
  return stale.length;
}

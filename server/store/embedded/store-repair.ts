import { copyFile, mkdir, unlink } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { lockDirectory } from './dir-lock.js';
import { fsyncDirectory, fsyncFile, truncateDurably } from '../../../contracts/common/fsync.js';
import { SnapshotFileAdapter } from './snapshot-adapter.js';
import type { SnapshotEntry } from './snapshot-codec.js';
import { checkSnapshot } from './snapshot-check.js';
import { checkStore, type StoreReport } from './store-check.js';
import { SNAPSHOT_FILE } from './journal-files.js';
import { appError } from '../../errors.js';

export interface RepairResult {
  /** Where every file was copied before anything changed; null when nothing needed repair. */
  backupDir: string | null;
  /** What was done, one sentence each. */
  actions: string[];
  /** Acknowledged journal entries cut off (the first damaged one included). */
  lostAcknowledgedEntries: number;
  /** Damaged snapshot records left out of the rewritten snapshot. */
  droppedSnapshotRecords: number;
}

/**
 * Makes a damaged data directory start again, losing as little as can be
 * known: the journal is cut at its first damaged entry (everything after it
 * depends on it), and a damaged snapshot is rewritten from its intact
 * records. Every file is copied to a backup folder first, and the directory
 * is locked, so it never runs beside a server.
 */
export async function repairStore(dir: string, now = new Date()): Promise<RepairResult & { before: StoreReport }> {
  const lock = await lockDirectory(dir);
  try {
    const before = await checkStore(dir);
    const result: RepairResult = {
      backupDir: null,
      actions: [],
      lostAcknowledgedEntries: 0,
      droppedSnapshotRecords: 0,
    };
    if (!before.damaged) return { ...result, before };

    const snapshotSeq = before.snapshotSeq;
    if (snapshotSeq === null) {
      throw appError(
        'REPAIR_REFUSED',
        `${SNAPSHOT_FILE}'s header is damaged and no journal file tells which position it covers; restore it from a backup`,
      );
    }
    result.backupDir = await backUp(dir, before, now);

    const snapshot = before.snapshot;
    if (snapshot && snapshot.damage.length > 0) {
      const entries: SnapshotEntry[] = [];
      await checkSnapshot(snapshot.path, (entry) => entries.push(entry));
      await new SnapshotFileAdapter(snapshot.path, { loopShare: 1 }).write({ seq: snapshotSeq, entries });
      result.droppedSnapshotRecords = snapshot.damagedRecords;
      result.actions.push(
        `rewrote ${SNAPSHOT_FILE} (seq ${snapshotSeq}) from its ${entries.length} intact records, leaving out ${snapshot.damagedRecords} damaged ones`,
      );
    }

    const cut = before.journal.firstDamage;
    if (cut) {
      await truncateDurably(cut.file, cut.offset);
      const later = before.journal.files.filter((file) => file.path > cut.file);
      await Promise.all(later.map((file) => unlink(file.path)));
      await fsyncDirectory(dir);
      result.lostAcknowledgedEntries = before.journal.completeLinesFromFirstDamage;
      result.actions.push(
        `cut ${basename(cut.file)} at line ${cut.line} (${cut.reason})${later.length ? ` and removed ${later.length} later journal file(s)` : ''}: ` +
          `${result.lostAcknowledgedEntries} acknowledged entries lost`,
      );
    }
    return { ...result, before };
  } finally {
    await lock.release();
  }
}

async function backUp(dir: string, report: StoreReport, now: Date): Promise<string> {
  const backupDir = join(dir, `repair-backup-${now.toISOString().replace(/[:.]/g, '-')}`);
  await mkdir(backupDir);
  const files = [...(report.snapshot ? [report.snapshot.path] : []), ...report.journal.files.map((file) => file.path)];
  for (const file of files) {
    await copyFile(file, join(backupDir, basename(file)));
    await fsyncFile(join(backupDir, basename(file)));
  }
  await fsyncDirectory(backupDir);
  await fsyncDirectory(dir);
  return backupDir;
}

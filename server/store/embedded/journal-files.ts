import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

// Journal files are named after the sequence number of their first entry,
// zero-padded so that names sort in sequence order.

const PATTERN = /^journal-(\d{16})\.jsonl$/;

export function journalFileName(firstSeq: number): string {
  return `journal-${String(firstSeq).padStart(16, '0')}.jsonl`;
}

export interface JournalFile {
  path: string;
  name: string;
  firstSeq: number;
}

export async function listJournalFiles(dir: string): Promise<JournalFile[]> {
  const names = await readdir(dir);
  return names
    .map((name) => ({ name, match: PATTERN.exec(name) }))
    .filter((entry): entry is { name: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ name, match }) => ({ name, path: join(dir, name), firstSeq: Number(match[1]) }))
    .sort((a, b) => a.firstSeq - b.firstSeq);
}

/** The embedded store's snapshot: every record as of the journals it replaced. */
export const SNAPSHOT_FILE = 'snapshot.jsonl';

/**
 * Why a snapshot of the format before checksums does not agree with the
 * journal it precedes, or null when it does. Nothing checks such a
 * snapshot's header, so it is trusted only where the journal confirms it:
 * a snapshot is always taken at a rotation of the journal, so the journal
 * file after a snapshot covering entries up to N starts at N + 1.
 */
export function unchecksummedSnapshotDisagreement(
  seq: number,
  journalFiles: readonly { firstSeq: number }[],
): string | null {
  if (journalFiles.length === 0 || journalFiles.some((file) => file.firstSeq === seq + 1)) return null;
  const starts = journalFiles.map((file) => file.firstSeq).join(', ');
  return `a snapshot of the old format (no checksums) says it covers entries up to ${seq}, but no journal file starts at ${seq + 1} (they start at ${starts}): its header cannot be trusted`;
}

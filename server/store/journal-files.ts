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

import { writeSync } from 'node:fs';

// write(2) may write fewer bytes than asked without reporting an error: when
// the disk fills in the middle of a write, the kernel writes what fits and
// returns that count; only the next write fails with ENOSPC. A caller that
// ignores the count and then fsyncs has made durable a cut line and takes it
// for the whole. So every durable write here loops until every byte is
// written or an error is returned, and a write that makes no progress is an
// error of its own.

/** The part of a FileHandle these loops use, so a test can give short writes. */
export interface WritableHandle {
  write(buffer: Uint8Array, offset: number, length: number): Promise<{ bytesWritten: number }>;
}

/** A write that made no progress: the disk took nothing more, so it is full, and it fails as the OS says so (ENOSPC). */
function noProgress(written: number, total: number): NodeJS.ErrnoException {
  return Object.assign(new Error(`ENOSPC: the disk took ${written} of ${total} bytes and then nothing more`), {
    code: 'ENOSPC',
  });
}

/**
 * Writes every byte of `data` at the file's current position, looping
 * over short writes; rejects with the error of
 * the write that failed. On rejection `written` in the error tells how many
 * bytes did reach the file, so the caller can cut them off again.
 */
export async function writeFully(handle: WritableHandle, data: Uint8Array): Promise<void> {
  let written = 0;
  while (written < data.length) {
    let bytesWritten: number;
    try {
      ({ bytesWritten } = await handle.write(data, written, data.length - written));
    } catch (error) {
      throw withWritten(error as Error, written);
    }
    if (bytesWritten <= 0) throw withWritten(noProgress(written, data.length), written);
    written += bytesWritten;
  }
}

/** writeFully for a file descriptor, synchronously (the emulator writes its journal before answering on the line). */
export function writeFullySync(fd: number, data: Uint8Array, write: typeof writeSync = writeSync): void {
  let written = 0;
  while (written < data.length) {
    const bytesWritten = write(fd, data, written, data.length - written);
    if (bytesWritten <= 0) throw noProgress(written, data.length);
    written += bytesWritten;
  }
}

/** How many bytes a failed writeFully left in the file (0 when not known). */
export function bytesWrittenBefore(error: unknown): number {
  const written = (error as { written?: unknown } | null)?.written;
  return typeof written === 'number' ? written : 0;
}

function withWritten(error: Error, written: number): Error {
  (error as Error & { written: number }).written = written;
  return error;
}

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

// A report file named on a command line (--junit, --report): its folder is
// made if it is missing (a CI job's `reports/` does not exist in a fresh
// clone), and whether it can be written is found out before any work, so a
// run never ends, its work done, on a stack trace.

/** Makes the report's folder and touches the file; answers why it cannot be written, or null. */
export function prepareReportFile(option: string, path: string): string | null {
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, '', { flag: 'a' });
    return null;
  } catch (error) {
    return `${option} ${path}: cannot write there (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
}

import { readFileSync, statSync } from 'node:fs';
import { howToGive, readCredential, type CredentialKind } from '../../contracts/cli/credential.js';
import { usageError, type CliIo } from './io.js';
import { CliError } from '../errors.js';

// A secret that never comes from the command line (a nexo passphrase, an
// API key): from a file only its owner may read, as ssh insists for a
// private key, or from an environment variable.

function readPrivate(path: string): string {
  const mode = statSync(path).mode;
  if ((mode & 0o077) !== 0)
    throw new CliError(
      'USAGE',
      `is readable by others (mode ${(mode & 0o777).toString(8)}); chmod 600 ${path} (its secret may already be known to every local user)`,
    );
  return readFileSync(path, 'utf8');
}

/** The secret of `kind` from its file or variable; undefined when neither was given and it is optional. */
export function privateSecret(kind: CredentialKind, file: unknown, io: CliIo, required: boolean): string | undefined {
  const answer = readCredential(kind, {
    file: typeof file === 'string' ? file : undefined,
    env: io.env,
    read: readPrivate,
  });
  if ('error' in answer) throw usageError(answer.error);
  for (const warning of answer.warnings) io.err(`svc-terminal: warning: ${warning}\n`);
  if (answer.value === undefined && required) throw usageError(howToGive(kind));
  return answer.value;
}

import { readFileSync } from 'node:fs';

// How every command of ours takes a secret or a token: from a file, from an
// environment variable, or from a flag, in that order. A flag is accepted
// with a warning (the command line is visible to every local user in `ps`,
// and npm echoes it); two sources at once are reported, so a stale one is
// never used silently; a value of the wrong shape is refused before anything
// is sent with it. One rule for svc-terminal, svc-relay, svc-contracts and
// replay, with one variable name per idea.

export interface CredentialKind {
  /** In words, for messages: "the terminal's secret". */
  what: string;
  /** The flag that takes the value itself: "--secret". */
  flag: string;
  /** The flag that takes a file holding it: "--secret-file". */
  fileFlag: string;
  /** The environment variable: "SVC_TERMINAL_SECRET". */
  env: string;
  /** Earlier names of the variable, still read with a warning. */
  formerEnv?: readonly string[];
  /** What a well-formed value looks like; undefined when anything non-empty is. */
  shape?: { pattern: RegExp; says: string };
}

export const TERMINAL_SECRET: CredentialKind = {
  what: "the terminal's secret",
  flag: '--secret',
  fileFlag: '--secret-file',
  env: 'SVC_TERMINAL_SECRET',
  shape: { pattern: /^[0-9a-f]{64}$/, says: '64 lowercase hex characters, as shown once at provisioning' },
};

export const WEBHOOK_SECRET: CredentialKind = {
  what: 'the webhook secret',
  flag: '--secret',
  fileFlag: '--secret-file',
  env: 'SVC_WEBHOOK_SECRET',
};

/** An API or login token of the account (sk_…); one variable for every command. */
export const API_TOKEN: CredentialKind = {
  what: 'the API token',
  flag: '--token',
  fileFlag: '--token-file',
  env: 'SVC_TOKEN',
  formerEnv: ['SVC_API_TOKEN'],
};

export interface CredentialInput {
  /** The value of kind.flag, if given. */
  flag?: string | undefined;
  /** The value of kind.fileFlag, if given. */
  file?: string | undefined;
  env: Readonly<Record<string, string | undefined>>;
  read?: (path: string) => string;
}

export type CredentialAnswer = { value: string | undefined; warnings: string[] } | { error: string };

/** The credential of `kind` from what was given, with the warnings to print; `value` undefined when none was given. */
export function readCredential(kind: CredentialKind, input: CredentialInput): CredentialAnswer {
  const { flag: flagName, fileFlag: fileFlagName } = kind;
  const warnings: string[] = [];
  const envName = [kind.env, ...(kind.formerEnv ?? [])].find((name) => input.env[name]);
  if (envName && envName !== kind.env) warnings.push(`${envName} is an old name: use ${kind.env}`);
  const given = [
    input.file !== undefined ? fileFlagName : null,
    envName ?? null,
    input.flag !== undefined ? flagName : null,
  ].filter((name) => name !== null);
  if (given.length > 1) warnings.push(`${kind.what} is given by ${given.join(' and ')}; ${given[0]} is used`);
  let value: string | undefined;
  if (input.file !== undefined) {
    try {
      value = (input.read ?? ((path) => readFileSync(path, 'utf8')))(input.file).trim();
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return {
        error: `${fileFlagName} ${input.file}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
      };
    }
    if (value === '') return { error: `${fileFlagName} ${input.file} is empty: it should hold ${kind.what}` };
  } else if (envName) {
    value = input.env[envName]!.trim();
    if (value === '') return { error: `${envName} is empty: it should hold ${kind.what}` };
  } else if (input.flag !== undefined) {
    warnings.push(
      `${flagName} is visible to every local user in ps (and npm prints it): prefer ${fileFlagName} or ${kind.env}`,
    );
    value = input.flag.trim();
    if (value === '') return { error: `${flagName} is empty: it should be ${kind.what}` };
  }
  if (value !== undefined && kind.shape && !kind.shape.pattern.test(value))
    return { error: `${kind.what} is ${kind.shape.says}; what was given is not (${value.length} characters)` };
  return { value, warnings };
}

/** How to give it, for a message naming what is missing. */
export const howToGive = (kind: CredentialKind) => `give ${kind.what} with ${kind.fileFlag} FILE or ${kind.env}`;

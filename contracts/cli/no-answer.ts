// One exit status for "nothing answered" across the commands (svc-contracts,
// svc-scenario, svc-replay, svc-race, svc-demo, svc-terminal play and
// control): 3, beside 0 done, 1 the command's own failure and 2 a usage
// mistake; and one line that says so before anything is sent.

export const EXIT_NO_ANSWER = 3;

/** Why a request got no answer, in the words of the commands: the time-out, or the network's error code. */
function whyNoAnswer(error: unknown, timeoutMs: number): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if ((error as Error).name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  return cause?.code ?? cause?.message ?? (error as Error).message;
}

/**
 * Why `baseUrl` does not answer an HTTP request at all (GET `path`, /health by default), or undefined when it
 * answers anything: the one probe every command asks before it sends anything. `why` words the failure (the
 * contract suite words it as it words every request's).
 */
export async function noAnswerFrom(
  baseUrl: string,
  timeoutMs = 5000,
  { path = '/health', why = whyNoAnswer }: { path?: string; why?: (error: unknown, timeoutMs: number) => string } = {},
): Promise<string | undefined> {
  try {
    const answer = await fetch(new URL(path, baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
    await answer.body?.cancel();
    return undefined;
  } catch (error) {
    return why(error, timeoutMs);
  }
}

/** The line a command prints when nothing answers. */
export const noAnswerLine = (command: string, baseUrl: string, why: string) =>
  `${command}: cannot reach ${baseUrl} (${why}); is the server running? Nothing was sent.\n`;

/** Exits 3 with that line when `baseUrl` does not answer. */
export async function exitUnlessAnswering(command: string, baseUrl: string): Promise<void> {
  const why = await noAnswerFrom(baseUrl);
  if (why === undefined) return;
  process.stderr.write(noAnswerLine(command, baseUrl, why));
  process.exit(EXIT_NO_ANSWER);
}

// How long the soak tests run (kill runs, kill storms): `npm test` runs a
// shorter round of each, enough to exercise every path; `npm run
// test:soak` (SOAK=1, which .ci/run runs after the suite) runs them at full
// length, as the closing notes and BENCHMARKS.md report them.

export const soaking = process.env.SOAK === '1';

/** `full` under `npm run test:soak`, else `short`. */
export function soakLength(full: number, short: number): number {
  return soaking ? full : short;
}

import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// The README's GitHub Actions step, run as a runner runs it: its `run:`
// script in bash, in a workspace of its own, with `docker run` carried out
// by buildah (the tier's way of running the image). What matters is what
// the job has afterwards on its side: the JUnit report.

const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The `run: |` script of the GitHub Actions example, unindented. */
export function readmeJobScript(): string {
  const example = /\*\*In CI\.\*\*[\s\S]*?```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
  const block = example && /- run: \|\n((?: {10}.*\n)+)/.exec(example)?.[1];
  if (!block) throw new Error("the README's GitHub Actions example has no `run: |` step");
  return block.replace(/^ {10}/gm, '');
}

// `docker run` as buildah does it: the flags the example uses, the image, then the command. A flag the
// example gains that this does not know fails loudly rather than being dropped.
const dockerAsBuildah = `docker() {
  [ "$1" = run ] || { echo "docker $1: not emulated by the image tier" >&2; return 2; }
  shift
  local flags=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --rm) shift ;;
      --network) shift 2 ;;
      -v | --volume) flags+=(-v "$2"); shift 2 ;;
      -u | --user) flags+=(--user "$2"); shift 2 ;;
      -e | --env) flags+=(-e "$2"); shift 2 ;;
      -*) echo "docker run $1: not emulated by the image tier" >&2; return 2 ;;
      *) break ;;
    esac
  done
  local image=$1; shift
  [ "$image" = svc-pos-sim ] || { echo "docker run: unexpected image $image" >&2; return 2; }
  local name; name=$(buildah from --quiet "$IMAGE") || return 1
  buildah run --isolation chroot "\${flags[@]}" "$name" -- "$@"; local code=$?
  buildah rm "$name" > /dev/null
  return $code
}
`;

/** Runs the step against the server at `base` (the example's service on :3000); its exit code, output and report. */
export async function runReadmeJob(
  image: string,
  base: string,
): Promise<{ code: number | null; output: string; report: string | undefined }> {
  const workspace = mkdtempSync(join(tmpdir(), 'readme-job-'));
  try {
    const script = `set -e\n${dockerAsBuildah}${readmeJobScript().replaceAll('http://127.0.0.1:3000', base)}`;
    const child = spawn('bash', ['-c', script], {
      cwd: workspace,
      env: { ...process.env, IMAGE: image },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    let report: string | undefined;
    try {
      report = readFileSync(join(workspace, 'reports', 'contracts.xml'), 'utf8');
    } catch {
      report = undefined;
    }
    return { code, output, report };
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
}

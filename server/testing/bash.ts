import { spawn } from 'node:child_process';

/**
 * Runs `script` in bash as a user pastes it, in `cwd`; every job it left
 * running in the background (a server, an emulator, socat) ends with it.
 */
export function bash(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      env: { ...process.env, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let code: number | null = null;
    // bash has exited: the jobs it left hold its output open until they end too, so they are ended, and
    // what they and bash wrote is read to its end before this answers.
    child.on('exit', (exitCode) => {
      code = exitCode;
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // nothing left running
      }
    });
    child.on('close', () => resolve({ code, stdout, stderr }));
  });
}

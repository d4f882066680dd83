import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { missingTool } from '../contracts/common/missing-tool.js';
import { LineError } from './errors.js';

const socat = '/usr/bin/socat';

/** Why pseudo-terminal tests cannot run here, or false. Under CI they always run (.ci/run installs socat). */
export function socatSkip(): string | false {
  return missingTool(`socat (${socat})`, () => existsSync(socat), "install Debian's socat package");
}

/** A real pseudo-terminal pair made by socat, its two ends named `host` and `device` in `dir`. */
export class PtyPair {
  private process: ChildProcess | null = null;
  readonly host: string;
  readonly device: string;

  constructor(dir: string) {
    this.host = join(dir, 'host');
    this.device = join(dir, 'device');
  }

  async start(): Promise<void> {
    this.process = spawn(socat, [`pty,raw,echo=0,link=${this.host}`, `pty,raw,echo=0,link=${this.device}`], {
      stdio: 'ignore',
    });
    const deadline = Date.now() + 15_000;
    // socat makes the links once both pseudo-terminals exist: a few milliseconds, longer on a loaded machine.
    while (!existsSync(this.host) || !existsSync(this.device)) {
      if (Date.now() > deadline)
        throw new LineError('LINE_FAILED', 'timed out waiting for socat to create the pseudo-terminals');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Kills socat: both ends of the line drop, as when a cable is pulled. */
  async stop(): Promise<void> {
    const running = this.process;
    this.process = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
    // Killed, socat cannot remove its links: they stay, dangling, on /dev/pts/N. The kernel gives that number
    // to the next pseudo-terminal made, in any process, and a client reopening the old link would then be on
    // another test's line (seen in CI with two test files at once: a reconnecting bridge talked to another
    // test's device, and both tests stalled). The links go with the line.
    rmSync(this.host, { force: true });
    rmSync(this.device, { force: true });
  }
}

export { openSerial as openPort } from './serial-port.js';

/**
 * Debian's nats-server for a test: JetStream on 127.0.0.1, a free port, a temporary store. Undefined (the test
 * skipped; a failure under CI=true) when it is not installed. `stop()` ends it (SIGTERM, SIGKILL after 5 s) and
 * removes the store.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import type { TestContext } from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

const NATS = '/usr/sbin/nats-server';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface NatsServer {
  port: number;
  url: string;
  stop(): Promise<void>;
}

export async function startNatsServer(t: TestContext, name: string): Promise<NatsServer | undefined> {
  if (!existsSync(NATS)) {
    if (process.env.CI === 'true') assert.fail(`${NATS} is missing (Debian package nats-server)`);
    t.skip(`${NATS} not installed (apt-get install nats-server)`);
    return undefined;
  }
  return launchNatsServer(name);
}

/** Whether Debian's nats-server is installed. */
export const hasNatsServer = (): boolean => existsSync(NATS);

/** Start Debian's nats-server (see startNatsServer; an AssertionError when it does not start). */
export async function launchNatsServer(name: string): Promise<NatsServer> {
  const store = mkdtempSync(join(tmpdir(), `tickwire-${name}-`));
  const port = await freePort();
  const nats = spawn(NATS, ['-js', '-sd', store, '-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  nats.stderr!.on('data', (d) => (log += d));
  const stop = async () => {
    if (nats.exitCode === null && nats.signalCode === null) {
      const exited = new Promise((r) => nats.once('exit', r));
      nats.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (nats.exitCode === null && nats.signalCode === null) nats.kill('SIGKILL');
    }
    rmSync(store, { recursive: true, force: true });
  };
  for (let i = 0; i < 300 && !log.includes('Server is ready'); i++) await sleep(100);
  if (!log.includes('Server is ready')) {
    await stop();
    assert.fail(`nats-server did not start: ${log.slice(-2000)}`);
  }
  return { port, url: `nats://127.0.0.1:${port}`, stop };
}

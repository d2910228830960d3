/**
 * Running a test worker inside a loopback-only network namespace (the live tests against real
 * game servers and clients): `unshare -n` as root, else a user namespace with `-r -n`; the worker
 * prints one `RESULT <json>` line; the whole process group is stopped when it is done or late.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import type { TestContext } from 'node:test';

// biome-ignore lint/suspicious/noExplicitAny: a worker's JSON result, read field by field by each test
export type Json = Record<string, any>;

/** How to get a network namespace here, or undefined when this machine cannot make one. */
export function namespaceArgs(): string[] | undefined {
  for (const ns of process.getuid?.() === 0 ? [['-n'], ['-r', '-n']] : [['-r', '-n']]) {
    const r = spawnSync('unshare', [...ns, 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore', timeout: 10000 });
    if (r.status === 0) return ns;
  }
  return undefined;
}

/**
 * Run `node --import tsx <script> <mode>` from `cwd` in a new namespace with `lo` up (an example's demo) and give
 * its `RESULT <json>` line, parsed; undefined when this machine cannot make a namespace (the test is skipped; a
 * failure under CI=true).
 */
export function runExampleInNamespace(t: TestContext, cwd: string, script: string, mode: string): Json | undefined {
  const ns = namespaceArgs();
  if (ns === undefined) {
    if (process.env.CI === 'true') assert.fail('cannot create a loopback-only network namespace (unshare -n / -r -n)');
    t.skip('no network namespace available');
    return undefined;
  }
  const r = spawnSync('unshare', [...ns, 'sh', '-c', `ip link set lo up && exec "$0" --import tsx ${script} ${mode}`, process.execPath], {
    cwd,
    encoding: 'utf8',
    timeout: 60_000,
  });
  const line = r.stdout.split('\n').find((l) => l.startsWith('RESULT '));
  assert.ok(line, `no result (status ${r.status}): ${r.stderr}`);
  return JSON.parse(line.slice(7)) as Json;
}

/**
 * Run `worker` (a .ts file, through tsx) in a new namespace with `lo` up; resolve with its RESULT
 * line and its stderr. Rejects when it exits without a result or takes longer than `timeoutMs`.
 */
export async function runNamespacedWorker(
  ns: string[],
  worker: string,
  cwd: string,
  timeoutMs: number,
  label: string,
  graceMs = 1000,
): Promise<{ result: Json; stderr: string }> {
  const child = spawn('unshare', [...ns, 'sh', '-c', 'ip link set lo up && exec "$0" --import tsx "$1"', process.execPath, worker], {
    cwd,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env },
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${label} took longer than ${timeoutMs} ms\n${err}`)), timeoutMs);
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    const line = out.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) throw new Error(`${label} exited with ${code} and no result\nstdout: ${out}\nstderr: ${err}`);
    return { result: JSON.parse(line.slice(7)) as Json, stderr: err };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
        await new Promise((r) => setTimeout(r, graceMs));
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

/**
 * Stop a process started with `detached: true` and everything in its group: SIGTERM, then
 * SIGKILL after `grace` ms if any member is still alive.
 */
export async function stopGroup(p: ChildProcess, grace = 3000): Promise<void> {
  if (p.pid === undefined) return;
  const group = -p.pid;
  const groupAlive = () => {
    try {
      process.kill(group, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (!groupAlive()) return;
  try {
    process.kill(group, 'SIGTERM');
  } catch {
    return;
  }
  const end = Date.now() + grace;
  while (Date.now() < end && groupAlive()) await new Promise((r) => setTimeout(r, 50));
  if (groupAlive()) {
    try {
      process.kill(group, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

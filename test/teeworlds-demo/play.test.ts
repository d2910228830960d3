/**
 * A demo tickwire writes plays in the real Teeworlds 0.7.5 client (Debian
 * `teeworlds`): see play-worker.ts for what runs (inside a loopback-only
 * network namespace, under Xvfb). Asserts on the client's own console output —
 * it entered demo playback, printed the chat line that only our demo holds and
 * the players' join lines from our message chunks, read to the demo's end
 * without a snapshot or demo error — and on a screenshot taken while it played
 * (saved under test-results/), compared with a blank screen.
 *
 * Skips (with the reason) when the client, Xvfb, ImageMagick or `unshare` are
 * missing; fails instead when CI=true.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./play-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUR_CHAT = 'demo written by tickwire';

const which = (cmd: string): boolean => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

function missing(): string | undefined {
  const m: string[] = [];
  if (!existsSync('/usr/games/teeworlds')) m.push('the Teeworlds 0.7 client (/usr/games/teeworlds, package teeworlds)');
  if (!which('xvfb-run') || !which('Xvfb')) m.push('xvfb-run (packages xvfb, xauth)');
  if (!which('import') || !which('convert')) m.push('import / convert (package imagemagick)');
  if (!which('unshare') || !which('ip')) m.push('unshare / ip (util-linux, iproute2)');
  return m.length === 0 ? undefined : `missing ${m.join(', ')}: apt-get install -y teeworlds xvfb xauth imagemagick libgl1-mesa-dri iproute2`;
}

function namespaceArgs(): string[] | undefined {
  for (const ns of process.getuid?.() === 0 ? [['-n'], ['-r', '-n']] : [['-r', '-n']]) {
    if (spawnSync('unshare', [...ns, 'sh', '-c', 'ip link set lo up'], { stdio: 'ignore', timeout: 10000 }).status === 0) return ns;
  }
  return undefined;
}

// biome-ignore lint/suspicious/noExplicitAny: the worker's JSON result
type Json = Record<string, any>;

async function runWorker(ns: string[], timeoutMs: number): Promise<{ result: Json; stderr: string }> {
  const child = spawn('unshare', [...ns, 'sh', '-c', 'ip link set lo up && exec "$0" --import tsx "$1"', process.execPath, WORKER], {
    cwd: ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const code = await new Promise<number | null>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`demo play worker took longer than ${timeoutMs} ms\n${err}`)), timeoutMs);
      child.on('error', reject);
      child.on('exit', (c) => resolve(c));
    });
    const line = out.split('\n').find((l) => l.startsWith('RESULT '));
    if (line === undefined) throw new Error(`demo play worker exited with ${code} and no result\nstdout: ${out}\nstderr: ${err}`);
    return { result: JSON.parse(line.slice(7)) as Json, stderr: err };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (child.pid !== undefined && child.exitCode === null) {
      try {
        process.kill(-child.pid, 'SIGTERM');
        await new Promise((r) => setTimeout(r, 1000));
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
}

test('teeworlds demo: a demo written by tickwire plays in the real Teeworlds 0.7.5 client', { timeout: 200_000 }, async (t) => {
  const why = missing() ?? (namespaceArgs() === undefined ? 'cannot create a network namespace (`unshare -n` needs root or CAP_SYS_ADMIN)' : undefined);
  if (why !== undefined) {
    if (process.env.CI === 'true') assert.fail(`demo play test cannot run: ${why}`);
    t.skip(`demo play test skipped: ${why}`);
    return;
  }
  const { result: r, stderr } = await runWorker(namespaceArgs()!, 180_000);
  assert.equal(r.fatal, undefined, `worker failed: ${r.fatal}\n${stderr}`);
  assert.equal(r.error, undefined, `${r.error}`);
  process.stderr.write(
    `demo play: ${JSON.stringify({ demo: r.demo, playingAfterMs: r.playingAfterMs, endAfterMs: r.endAfterMs, screenshot: r.screenshot, demoPlayer: r.demoPlayer })}\n`,
  );
  // Our demo has the one chat line replaced and many snapshots.
  assert.equal(r.demo.replaced, 1);
  assert.ok(r.demo.snapshots >= 10, `${r.demo.snapshots} snapshots written`);
  // The client went into demo playback (0.7 STATE_DEMOPLAYBACK = 4) ...
  assert.ok(
    r.states.some((l: string) => / current=4$/.test(l)),
    r.states.join('\n'),
  );
  // ... printed the chat line only our demo holds, and the join lines of the three players (message chunks) ...
  assert.ok(
    r.chat.some((l: string) => l.endsWith(`*** ${OUR_CHAT}`)),
    r.chat.join('\n'),
  );
  for (const name of ['alpha', 'beta', 'gamma'])
    assert.ok(
      r.chat.some((l: string) => l.includes(`'${name}' entered and joined the game`)),
      `${name} joined`,
    );
  // ... and read every chunk to the end with no demo or snapshot error.
  assert.ok(
    r.demoPlayer.some((l: string) => /end of file/.test(l)),
    r.demoPlayer.join('\n'),
  );
  assert.deepEqual(r.errors, []);
  // The screenshot taken while it played is a picture (many colours), not a blank screen (one colour, no variation).
  assert.equal(r.screenshot.status, 0, r.screenshot.stderr);
  const [sd, colours] = r.screenshot.stats as [number, number];
  const [blankSd, blankColours] = r.screenshot.blank as [number, number];
  assert.equal(blankColours, 1);
  assert.equal(blankSd, 0);
  assert.ok(colours > 1000 && sd > 0.05, `screenshot: ${colours} colours, standard deviation ${sd}`);
});

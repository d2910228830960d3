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
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { namespaceArgs, runNamespacedWorker } from '../helpers/namespace-worker.js';

const WORKER = fileURLToPath(new URL('./play-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const runWorker = (ns: string[], timeoutMs: number) => runNamespacedWorker(ns, WORKER, ROOT, timeoutMs, 'demo play worker', 1000);
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

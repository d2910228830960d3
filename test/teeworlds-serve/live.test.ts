/**
 * The judge: the real Teeworlds 0.7.5 and DDNet 16.4 clients (Debian
 * `teeworlds`, `ddnet`) play on `tickwire serve teeworlds` under Xvfb, inside a
 * network namespace that has only loopback. See live-worker.ts for what runs;
 * this file asserts on its RESULT line:
 *
 * - for at least 30 s in game, the tick the client acknowledges in its INPUTs
 *   keeps advancing, through delta snapshots (not only full ones);
 * - snapshots of several parts occur (full, and deltas when the pickups move)
 *   and the client acknowledges them;
 * - the client's console (debug output on) shows no snapshot CRC or delta error;
 * - a screenshot of the client is saved under test-results/;
 * - our own bot joins the same server meanwhile and sees the real client's tee.
 *
 * Skips (with the reason) only when the client binaries, Xvfb or ImageMagick's
 * `import` are missing; fails when CI=true and they are missing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Json, namespaceArgs, runNamespacedWorker } from '../helpers/namespace-worker.js';

/**
 * The share of a PNG's pixels (of the region `crop`, ImageMagick geometry, or of the whole image scaled to 80×60)
 * for which `test(r, g, b)` holds: ImageMagick's `convert` (Debian's imagemagick, which the live tests need) prints
 * the pixels as text.
 */
function pixelShare(png: string, crop: string | undefined, test: (r: number, g: number, b: number) => boolean): number {
  const args = crop === undefined ? [png, '-resize', '80x60!', '-depth', '8', 'txt:-'] : [png, '-crop', crop, '-depth', '8', 'txt:-'];
  const out = spawnSync('convert', args, { encoding: 'utf8', maxBuffer: 1 << 26 }).stdout ?? '';
  let n = 0;
  let hit = 0;
  for (const m of out.matchAll(/: \((\d+),(\d+),(\d+)/g)) {
    n++;
    if (test(Number(m[1]), Number(m[2]), Number(m[3]))) hit++;
  }
  return n === 0 ? 0 : hit / n;
}

const WORKER = fileURLToPath(new URL('./live-worker.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const runWorker = (ns: string[], timeoutMs: number) => runNamespacedWorker(ns, WORKER, ROOT, timeoutMs, 'serve live worker', 1000);

function which(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

function missing(): string | undefined {
  const m: string[] = [];
  if (!existsSync('/usr/games/teeworlds')) m.push('the Teeworlds 0.7 client (/usr/games/teeworlds, package teeworlds)');
  if (!existsSync('/usr/games/DDNet')) m.push('the DDNet client (/usr/games/DDNet, package ddnet)');
  if (!which('xvfb-run') || !which('Xvfb')) m.push('xvfb-run (packages xvfb, xauth)');
  if (!which('import')) m.push('import (package imagemagick)');
  if (!which('unshare') || !which('ip')) m.push('unshare / ip (util-linux, iproute2)');
  if (m.length === 0) return undefined;
  return `missing ${m.join(', ')}: apt-get install -y teeworlds ddnet xvfb xauth imagemagick libgl1-mesa-dri iproute2`;
}

const why = missing();

test('serve live: the real Teeworlds 0.7.5 and DDNet 16.4 clients play on tickwire serve', { timeout: 330_000 }, async (t) => {
  if (why !== undefined) {
    if (process.env.CI === 'true') assert.fail(`serve live test cannot run: ${why}`);
    t.skip(`serve live test skipped: ${why}`);
    return;
  }
  const ns = namespaceArgs();
  if (ns === undefined) {
    const msg = 'cannot create a network namespace (`unshare -n` needs root or CAP_SYS_ADMIN; `unshare -r -n` needs unprivileged user namespaces)';
    if (process.env.CI === 'true') assert.fail(`serve live test cannot run: ${msg}`);
    t.skip(`serve live test skipped: ${msg}`);
    return;
  }
  const { result: r, stderr } = await runWorker(ns, 300_000);
  assert.equal(r.fatal, undefined, `worker failed: ${r.fatal}\n${stderr}`);
  process.stderr.write(
    `serve live counts: ${JSON.stringify({ '0.7': { entered: r['0.7']?.enteredAfterMs, final: r['0.7']?.final, bot: r['0.7']?.bot }, ddnet: { entered: r.ddnet?.enteredAfterMs, final: r.ddnet?.final, bot: r.ddnet?.bot } })}\n`,
  );

  for (const v of ['0.7', 'ddnet'] as const) {
    await t.test(`${v === '0.7' ? 'teeworlds 0.7.5 → --version 0.7' : 'DDNet 16.4 → --version ddnet'}`, () => {
      const s = r[v] as Json;
      if (process.env.SERVE_LIVE_ONLY && s.skipped) return;
      assert.equal(s.error, undefined, `${v}: ${s.error}\n${stderr.slice(-3000)}`);
      const samples = s.samples as Json[];
      assert.ok(samples.length >= 12, `${v}: ${samples.length} samples of the server's counts`);
      const first = samples[0]!;
      const last = samples[samples.length - 1]!;
      // At least 30 s of play observed (the server's own tick: 50 per second).
      assert.ok(last.tick - first.tick >= 1450 && s.windowMs >= 30000, `${v}: observed ticks ${first.tick}..${last.tick} in a ${s.windowMs} ms window`);
      // The acknowledged tick keeps advancing, through deltas: in every 5 s (250 ticks) of the
      // window the client acknowledged newer ticks and new delta snapshots.
      for (let i = 0; i < samples.length; i++) {
        const j = samples.findIndex((x) => x.tick >= samples[i]!.tick + 250);
        if (j < 0) break;
        const a = samples[i]!;
        const b = samples[j]!;
        assert.ok(b.lastAck > a.lastAck, `${v}: acknowledged tick stuck at ${a.lastAck} from tick ${a.tick} to ${b.tick}`);
        assert.ok(b.ackedDelta > a.ackedDelta, `${v}: no delta snapshot acknowledged from tick ${a.tick} to ${b.tick}`);
      }
      const f = s.final as Json;
      assert.ok(f !== undefined, `${v}: final counts`);
      assert.ok(f.ackedDelta >= 50, `${v}: ${f.ackedDelta} delta snapshots acknowledged`);
      assert.ok(f.delta >= 10 * f.full, `${v}: ${f.delta} deltas vs ${f.full} full snapshots (a client that fails CRCs gets full ones)`);
      // Once the client acknowledges, deltas only: no RECOVER storm of full snapshots.
      assert.ok(last.full - first.full <= 2, `${v}: ${last.full - first.full} full snapshots sent during the window`);
      assert.ok(f.multiPartFull >= 1, `${v}: full snapshots needed several parts (${f.multiPartFull})`);
      assert.ok(f.multiPartDelta >= 3, `${v}: multi-part deltas (${f.multiPartDelta})`);
      assert.ok(f.ackedMultiPart >= 3, `${v}: ${f.ackedMultiPart} multi-part snapshots acknowledged`);
      assert.ok(f.ackedMultiPartDelta >= 2, `${v}: ${f.ackedMultiPartDelta} multi-part deltas acknowledged`);
      assert.ok(f.parts > f.delta + f.full, `${v}: ${f.parts} parts for ${f.delta + f.full} snapshots`);
      // The client's own console output: no snapshot CRC / delta error.
      assert.ok(s.clientLines > 50, `${v}: the client's console output was captured (${s.clientLines} lines)`);
      assert.deepEqual(s.clientErrors, [], `${v}: client console errors`);
      assert.ok((s.clientSawMap as string[]).length > 0, `${v}: the client loaded the map`);
      // Both cases serve a map the client does not have (dm2 under a new name): the client
      // downloaded it from our MAP_DATA chunks, saved it byte for byte, and loaded it.
      assert.equal(s.map, 'tickwire_dl');
      assert.equal(s.mapDataLast, true, `${v}: the server sent the last map chunk`);
      assert.ok((s.downloaded as Json[]).length >= 1 && (s.downloaded as Json[]).every((d) => d.same), `${v}: downloaded map: ${JSON.stringify(s.downloaded)}`);
      // Screenshot of the display while in game.
      assert.equal(s.screenshot?.status, 0, `${v}: screenshot: ${JSON.stringify(s.screenshot)}`);
      assert.ok(s.screenshot.bytes > 20000, `${v}: screenshot of ${s.screenshot.bytes} bytes`);
      // in game, not a menu or a loading screen: the HUD's health hearts at the top left (about 14 % red pixels
      // in that strip in game; none in the menus) and the map's ground tiles (brown) in the view
      const hud = pixelShare(s.screenshot.path as string, '250x30+0+10', (r, g, b) => r > 180 && g < 90 && b < 90);
      assert.ok(hud > 0.05, `${v}: the HUD's hearts: ${(hud * 100).toFixed(1)} % red at the top left of ${s.screenshot.path}`);
      const ground = pixelShare(
        s.screenshot.path as string,
        undefined,
        (r, g, b) => r > 140 && r < 220 && g > 80 && g < 150 && b > 30 && b < 110 && r - g > 35 && g - b > 15,
      );
      assert.ok(ground > 0.1, `${v}: map ground in view: ${(ground * 100).toFixed(1)} % of ${s.screenshot.path}`);
      // Our bot saw the real client's tee.
      assert.equal(s.bot.crcFailures, 0);
      assert.ok(s.bot.snapshots >= 100, `${v}: bot got ${s.bot.snapshots} snapshots`);
      assert.ok(s.bot.name && s.bot.character, `${v}: bot saw the real client: ${JSON.stringify(s.bot)}`);
    });
  }
});

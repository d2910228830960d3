/**
 * The real Teeworlds 0.7.5 client (Debian `teeworlds`) plays a demo that
 * tickwire wrote. Runs INSIDE a network namespace that has only loopback
 * (play.test.ts starts it with `unshare -n`); refuses to run otherwise.
 *
 * The demo: the events of the real 0.7.5 server demo fixture, written again by
 * our DemoWriter (its own keyframe interval, so other chunks than the
 * recorder's; the map stored from the teeworlds-serve fixture), with the one
 * chat line changed to `demo written by tickwire`. The client gets it in its
 * user storage (`$HOME/.local/share/teeworlds/demos/`) and the console command
 * `play demos/tickwire.demo` on its command line, under xvfb-run (Mesa
 * software GL, sound off, debug output on). A screenshot of the display is
 * taken while it plays; the worker waits for the demo player's "end of file".
 *
 * Prints one line `RESULT <json>`; play.test.ts asserts on it. Every process
 * started here is stopped by its process group id.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DemoWriter, demoEvents, readDemoInfo } from '../../src/protocols/teeworlds/index.js';
import { stopGroup as stop } from '../helpers/namespace-worker.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(ROOT, 'test-results');
const DISPLAY = 93;
export const OUR_CHAT = 'demo written by tickwire';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ifaces = Object.keys(networkInterfaces());
if (ifaces.some((n) => n !== 'lo')) {
  process.stdout.write(`RESULT ${JSON.stringify({ fatal: `not in a loopback-only namespace: interfaces ${ifaces.join(', ')}` })}\n`);
  process.exit(2);
}

/** Our demo: the fixture's snapshots and messages through DemoWriter, one chat line replaced. */
function ourDemo(): { bytes: Uint8Array; replaced: number; snapshots: number } {
  const src = new Uint8Array(readFileSync(join(ROOT, 'test/fixtures/teeworlds/demos/tw075-server-autorecord-dm1.demo')));
  const info = readDemoInfo(src);
  const map = new Uint8Array(readFileSync(join(ROOT, 'test/fixtures/teeworlds-serve/dm1-tw075.map')));
  const w = new DemoWriter({ codec: '0.7', version: 4, mapName: 'dm1', map, keyframeTicks: 50, type: 'server', timestamp: '2026-11-26_00-00-00' });
  const old = new TextEncoder().encode('hello from tickwire\0');
  let replaced = 0;
  let snapshots = 0;
  for (const e of demoEvents(src, info)) {
    if (e.kind !== 'message') {
      w.snapshot(e.tick, e.snapshot);
      snapshots++;
      continue;
    }
    let data = e.data;
    const at = Buffer.from(data).indexOf(Buffer.from(old));
    if (at >= 0) {
      // Sv_Chat: the ints stay, the string (NUL-terminated, the last field) is ours
      data = new Uint8Array([...data.subarray(0, at), ...new TextEncoder().encode(`${OUR_CHAT}\0`)]);
      replaced++;
    }
    w.message(data, e.tick);
  }
  return { bytes: w.finish(), replaced, snapshots };
}

type Json = Record<string, unknown>;
const res: Json = {};
const dir = mkdtempSync(join(tmpdir(), 'tickwire-demo-play-'));
let client: ChildProcess | undefined;
try {
  const home = join(dir, 'home');
  const demos = join(home, '.local/share/teeworlds/demos');
  mkdirSync(demos, { recursive: true });
  const demo = ourDemo();
  writeFileSync(join(demos, 'tickwire.demo'), demo.bytes);
  res.demo = { bytes: demo.bytes.length, replaced: demo.replaced, snapshots: demo.snapshots };
  const auth = join(dir, 'Xauthority');
  const logPath = join(dir, 'client.log');
  const fd = openSync(logPath, 'w');
  const t0 = Date.now();
  client = spawn(
    'xvfb-run',
    [
      '-n',
      String(DISPLAY),
      '-f',
      auth,
      '-s',
      '-screen 0 800x600x24',
      '/usr/games/teeworlds',
      'snd_enable 0',
      'debug 1',
      'console_output_level 2',
      'play demos/tickwire.demo',
    ],
    { cwd: dir, env: { ...process.env, HOME: home, LIBGL_ALWAYS_SOFTWARE: '1' }, detached: true, stdio: ['ignore', fd, fd] },
  );
  closeSync(fd);
  const text = () => readFileSync(logPath, 'utf8');
  const alive = () => client!.exitCode === null && client!.signalCode === null;
  // STATE_DEMOPLAYBACK is 4 in 0.7's IClient
  while (!/state change\. last=\d+ current=4/.test(text())) {
    if (!alive()) throw new Error(`the client exited (${client.exitCode}) before playing: ${text().slice(-3000)}`);
    if (Date.now() - t0 > 90000) throw new Error(`the client never started playing in 90 s: ${text().slice(-3000)}`);
    await sleep(200);
  }
  res.playingAfterMs = Date.now() - t0;
  // a few seconds into the demo (12 s long): a screenshot, and a blank one's stats to compare
  await sleep(4000);
  mkdirSync(RESULTS, { recursive: true });
  const png = join(RESULTS, 'teeworlds-demo-play-0.7.png');
  rmSync(png, { force: true });
  const r = spawnSync('import', ['-display', `:${DISPLAY}`, '-window', 'root', png], { env: { ...process.env, XAUTHORITY: auth }, timeout: 30000 });
  const stats = (file: string) =>
    spawnSync('convert', [file, '-format', '%[fx:standard_deviation] %k', 'info:'], { timeout: 30000 }).stdout?.toString().trim().split(' ').map(Number);
  const blank = join(dir, 'blank.png');
  spawnSync('convert', ['-size', '800x600', 'xc:black', blank]);
  res.screenshot = { path: png, status: r.status, stderr: r.stderr?.toString().slice(0, 300), stats: existsSync(png) ? stats(png) : null, blank: stats(blank) };
  while (!/\[demo_player\]: end of file/.test(text())) {
    if (!alive()) throw new Error(`the client exited (${client.exitCode}) while playing: ${text().slice(-3000)}`);
    if (Date.now() - t0 > 120000) throw new Error(`the demo did not reach its end in 120 s: ${text().slice(-3000)}`);
    await sleep(200);
  }
  res.endAfterMs = Date.now() - t0;
  const lines = text().split('\n');
  res.chat = lines.filter((l) => l.includes('[chat]:')).map((l) => l.replace(/^\[[^\]]*\]/, ''));
  res.demoPlayer = lines.filter((l) => l.includes('[demo_player]')).map((l) => l.replace(/^\[[^\]]*\]/, ''));
  res.states = lines.filter((l) => /state change/.test(l)).map((l) => l.replace(/^\[[^\]]*\]/, ''));
  res.errors = lines.filter((l) => /demo.*(error|fail|invalid|corrupt)|snapshot.*(error|fail|invalid)|delta.*fail/i.test(l)).slice(0, 20);
  res.weird = lines.filter((l) => /dropped weird message/.test(l)).map((l) => l.replace(/^\[[^\]]*\]/, ''));
} catch (e) {
  res.error = e instanceof Error ? e.message : String(e);
} finally {
  if (client !== undefined) await stop(client);
  if (!process.env.DEMO_PLAY_KEEP) rmSync(dir, { recursive: true, force: true });
  else res.dir = dir;
}
process.stdout.write(`RESULT ${JSON.stringify(res)}\n`);
process.exit(0);

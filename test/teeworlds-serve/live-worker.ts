/**
 * The real game clients judge `tickwire serve teeworlds`. Runs INSIDE a network
 * namespace that has only loopback (live.test.ts starts it with `unshare -n`);
 * it refuses to run when it sees any other interface.
 *
 * For each version at once (teeworlds 0.7.5 → `--version 0.7`, DDNet 16.4 →
 * `--version ddnet`): start `tickwire serve` (the CLI, as a child process), start
 * the real client under `xvfb-run` (Mesa software GL, sound off, debug output
 * on, `connect 127.0.0.1:PORT` as a console command, its own temporary HOME),
 * wait until it is in game, then for WINDOW_MS sample the server's per-client
 * counts (every 2 s), join our own bot (TeeworldsClient) and look for the real
 * client's tee in its snapshots, take a screenshot of the Xvfb display into
 * test-results/, and finally read the client's console output.
 *
 * Prints one line `RESULT <json>`; live.test.ts asserts on it. Every process
 * started here is stopped by its process group id.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, copyFileSync, mkdirSync, readdirSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, existsSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectTeeworlds, type UdpTeeworldsClient } from '../../src/protocols/teeworlds/net/udp.js';
import { stopGroup as stop } from '../helpers/namespace-worker.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RESULTS = join(ROOT, 'test-results');
const WINDOW_MS = Number(process.env.SERVE_LIVE_WINDOW_MS ?? 32000);
const JOIN_TIMEOUT_MS = Number(process.env.SERVE_LIVE_JOIN_MS ?? 150000);

const log = (...a: unknown[]) => process.stderr.write(`[serve-live] ${a.map(String).join(' ')}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const ifaces = Object.keys(networkInterfaces());
if (ifaces.some((n) => n !== 'lo')) {
  process.stdout.write(`RESULT ${JSON.stringify({ fatal: `not in a loopback-only namespace: interfaces ${ifaces.join(', ')}` })}\n`);
  process.exit(2);
}

const children: ChildProcess[] = [];
function start(cmd: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; out: string; pipe?: boolean }): ChildProcess {
  const fd = openSync(opts.out, 'w');
  const p = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', opts.pipe ? 'pipe' : fd, fd] });
  closeSync(fd);
  children.push(p);
  return p;
}

function alive(p: ChildProcess): boolean {
  return p.exitCode === null && p.signalCode === null;
}

function findFiles(dir: string, want: (name: string) => boolean, depth = 0): string[] {
  if (depth > 6) return [];
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...findFiles(p, want, depth + 1));
    else if (want(e.name)) out.push(p);
  }
  return out;
}

interface Case {
  version: '0.7' | 'ddnet';
  bin: string;
  port: number;
  display: number;
  clientArgs: string[];
  playerName: string;
  /** A map the client does not have (copied under a new name): it must download it. */
  downloadMap?: string;
}

const CASES: Case[] = [
  {
    version: '0.7',
    bin: '/usr/games/teeworlds',
    port: 18320,
    display: 91,
    clientArgs: [],
    playerName: 'real07',
    downloadMap: '/usr/share/games/teeworlds/data/maps/dm2.map',
  },
  {
    version: 'ddnet',
    bin: '/usr/games/DDNet',
    port: 18321,
    display: 92,
    clientArgs: ['gfx_backend OpenGL'],
    playerName: 'realddnet',
    downloadMap: '/usr/share/games/ddnet/data/maps/dm2.map',
  },
];

/** A JSON object: the result this worker prints, and its parts. */
type Json = Record<string, unknown>;

/** One client of a `stats` line of `tickwire serve`. */
interface ClientStats {
  cid: number;
  name: string;
  counts: Json & { lastAck: number };
}

/**
 * A line `tickwire serve` printed (a JSON event), stamped with `at` (ms since the case began):
 * the fields read here, each on the events it is read from.
 */
interface LogLine {
  at: number;
  event: string;
  /** The server's clock. */
  t: number;
  tick: number;
  cid: number;
  name: string;
  /** `map-data`: the last chunk. */
  last?: boolean;
  /** `listening`. */
  map?: unknown;
  /** `stats`. */
  clients: ClientStats[];
  net?: unknown;
}

async function runCase(c: Case, only: string[]): Promise<Json> {
  if (only.length > 0 && !only.includes(c.version)) return { skipped: true };
  const dir = mkdtempSync(join(tmpdir(), `tickwire-serve-${c.version}-`));
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  const res: Json & { samples: Json[] } = { version: c.version, samples: [] as Json[] };
  const lines: LogLine[] = [];
  let bot: UdpTeeworldsClient | undefined;
  const mine: ChildProcess[] = [];
  const t0 = Date.now();
  try {
    // 1. tickwire serve (the CLI).
    const mapArgs: string[] = [];
    if (c.downloadMap !== undefined) {
      const m = join(dir, 'tickwire_dl.map');
      copyFileSync(c.downloadMap, m);
      mapArgs.push('--map', m);
    }
    const server = start(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/bin.ts'), 'serve', 'teeworlds', '--version', c.version, '--port', String(c.port), '--log-every', '2', ...mapArgs],
      {
        cwd: ROOT,
        env: { ...process.env },
        out: join(dir, 'serve.err'),
        pipe: true,
      },
    );
    mine.push(server);
    let buf = '';
    server.stdout!.on('data', (d: Buffer) => {
      buf += d.toString();
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        const l = buf.slice(0, i);
        buf = buf.slice(i + 1);
        try {
          lines.push({ at: Date.now() - t0, ...JSON.parse(l) });
        } catch {
          // not JSON
        }
      }
    });
    const until = async (what: string, ms: number, f: () => boolean) => {
      const end = Date.now() + ms;
      while (!f()) {
        if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
        if (!alive(server))
          throw new Error(`tickwire serve exited (${server.exitCode}) while waiting for ${what}: ${readFileSync(join(dir, 'serve.err'), 'utf8').slice(-2000)}`);
        await sleep(100);
      }
    };
    await until('the server to listen', 60000, () => lines.some((l) => l.event === 'listening'));

    // 2. The real client, under Xvfb, with its own HOME.
    const auth = join(dir, 'Xauthority');
    const clientLog = join(dir, 'client.log');
    const client = start(
      'xvfb-run',
      [
        '-n',
        String(c.display),
        '-f',
        auth,
        '-s',
        '-screen 0 800x600x24',
        c.bin,
        ...c.clientArgs,
        'snd_enable 0',
        'debug 1',
        'console_output_level 2',
        `player_name ${c.playerName}`,
        `connect 127.0.0.1:${c.port}`,
      ],
      { cwd: dir, env: { ...process.env, HOME: home, LIBGL_ALWAYS_SOFTWARE: '1' }, out: clientLog },
    );
    mine.unshift(client);
    const entered = () => lines.find((l) => l.event === 'enter' && l.name === c.playerName);
    await until(`${c.bin} to enter the game`, JOIN_TIMEOUT_MS, () => {
      if (!alive(client)) throw new Error(`${c.bin} exited (${client.exitCode}) before entering the game: ${readFileSync(clientLog, 'utf8').slice(-3000)}`);
      return entered() !== undefined;
    });
    const enter = entered()!;
    res.enteredAfterMs = enter.at;
    res.cid = enter.cid;
    log(c.version, `real client in game after ${enter.at} ms`);

    // 3. Our own bot joins the same server and looks for the real client's tee.
    const nv = c.version === '0.7' ? '0.7' : '0.6';
    bot = await connectTeeworlds({ host: '127.0.0.1', port: c.port, version: nv, name: 'tickwatch' });
    const botSaw = { name: false, character: false, snapshots: 0, crcFailures: 0, x: undefined as number | undefined };
    const b = bot;
    b.client.on('snapshot', (s) => {
      botSaw.snapshots++;
      if (!s.crcOk) botSaw.crcFailures++;
      const names = new Map<number, string>();
      if (nv === '0.7') for (const ci of b.client.clientInfos.values()) names.set(ci.clientId, ci.name);
      else for (const p of b.client.world.players.values()) if (p.name !== undefined) names.set(p.clientId, p.name);
      if (names.get(enter.cid) === c.playerName) botSaw.name = true;
      const ch = b.client.world.characters.get(enter.cid);
      if (ch !== undefined && names.get(enter.cid) === c.playerName) {
        botSaw.character = true;
        botSaw.x = Number(ch.fields.x);
      }
    });

    // 4. The window: sample the server's counts for the real client (a `stats` line every
    //    2 s; `t` is the server's clock, `tick` its game tick). The window starts with the
    //    client's first acknowledgement (a slow software-GL client may take seconds).
    let windowStart = Number.POSITIVE_INFINITY;
    const joinedAt = Date.now();
    let shot = false;
    let seen = 0;
    while (Date.now() - windowStart < WINDOW_MS) {
      await sleep(250);
      if (!alive(client)) throw new Error(`${c.bin} exited during the window: ${readFileSync(clientLog, 'utf8').slice(-3000)}`);
      if (windowStart === Number.POSITIVE_INFINITY && Date.now() - joinedAt > 60000) throw new Error(`${c.bin} never acknowledged a snapshot`);
      for (; seen < lines.length; seen++) {
        const l = lines[seen]!;
        if (l.event !== 'stats' || l.t < enter.t) continue;
        const me = l.clients.find((x) => x.cid === enter.cid && x.name === c.playerName);
        if (me === undefined) continue;
        if (me.counts.lastAck >= 0 && windowStart === Number.POSITIVE_INFINITY) windowStart = Date.now();
        if (windowStart !== Number.POSITIVE_INFINITY) res.samples.push({ t: l.t, tick: l.tick, ...me.counts });
      }
      if (!shot && Date.now() - windowStart > WINDOW_MS - 8000) {
        shot = true;
        mkdirSync(RESULTS, { recursive: true });
        const png = join(RESULTS, `teeworlds-serve-${c.version}.png`);
        rmSync(png, { force: true });
        const r = spawnSync('import', ['-display', `:${c.display}`, '-window', 'root', png], { env: { ...process.env, XAUTHORITY: auth }, timeout: 30000 });
        res.screenshot = { path: png, status: r.status, bytes: existsSync(png) ? statSync(png).size : 0, stderr: r.stderr?.toString().slice(0, 500) };
      }
    }
    res.windowMs = Date.now() - windowStart;
    res.bot = { ...botSaw, state: b.state, problems: b.problems.slice(0, 5).map((p) => p.what) };
    b.close('done');
    bot = undefined;

    // 5. Stop the client, then the server (its last lines carry the final counts).
    await stop(client);
    await stop(server);
    // Final counts: the last sample of the window (afterwards the client is being stopped).
    res.final = res.samples[res.samples.length - 1];
    res.drop = lines.find((l) => l.event === 'drop' && l.cid === enter.cid && l.name === c.playerName);
    const text = readFileSync(clientLog, 'utf8');
    res.clientLines = text.split('\n').length;
    res.clientErrors = text
      .split('\n')
      .filter((l) => /snapshot crc error|delta unpack failed|snapshot invalid|too many snap|invalid snapshot|snapshot.*(?:error|fail)/i.test(l))
      .slice(0, 20);
    res.clientSawMap = text
      .split('\n')
      .filter((l) => /loaded map|loading map/i.test(l))
      .slice(0, 3);
    res.map = lines.find((l) => l.event === 'listening')?.map;
    res.mapDataLast = lines.some((l) => l.event === 'map-data' && l.cid === enter.cid && l.last === true);
    // The map the client saved from our MAP_DATA chunks, byte for byte the file we served.
    const saved = findFiles(home, (n) => n.startsWith('tickwire_dl') && n.endsWith('.map'));
    res.downloaded = saved.map((f) => ({
      file: f.slice(home.length),
      same: c.downloadMap !== undefined && readFileSync(f).equals(readFileSync(c.downloadMap)),
    }));
    res.net = lines.filter((l) => l.event === 'stats').pop()?.net;
  } catch (e) {
    res.error = e instanceof Error ? e.message : String(e);
  } finally {
    bot?.close('done');
    for (const p of mine) await stop(p);
    res.elapsedMs = Date.now() - t0;
    if (!process.env.SERVE_LIVE_KEEP) rmSync(dir, { recursive: true, force: true });
    else res.dir = dir;
  }
  return res;
}

const only = (process.env.SERVE_LIVE_ONLY ?? '').split(',').filter((s) => s !== '');
let result: Json;
try {
  const [a, b] = await Promise.all(CASES.map((c) => runCase(c, only)));
  result = { '0.7': a, ddnet: b };
} catch (e) {
  result = { fatal: e instanceof Error ? e.message : String(e) };
} finally {
  await Promise.all(children.map((p) => stop(p, 1500)));
}
process.stdout.write(`RESULT ${JSON.stringify(result!)}\n`);
process.exit(0);

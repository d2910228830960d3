/**
 * The relays-over-NATS scenario of issue 20, run by nats-relays.test.ts (in a
 * loopback-only network namespace when one can be made): Debian's
 * nats-server with JetStream on 127.0.0.1 and a temporary store, one
 * authority (examples/nats-authority.ts), three relay processes (`tickwire
 * relay`), and N WebSocket clients in this process. At KILL_AT s one relay is
 * killed (its clients reconnect to another relay with a fresh mirror); at
 * RESTART_AT s nats-server is stopped and started again on the same store.
 * Every process is stopped by its pid. Writes to --out FILE (or prints
 * `RESULT {json}`) what each
 * client saw (per verified packet: tick and hash of its mirror), the hashes
 * the authority published (read back from JetStream), the authority's ticks
 * by wall time, and the relays' event logs; the test judges.
 *
 *   node --import tsx test/replication/nats-scenario.ts [--clients 300] [--seconds 30] [--entities 500]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jetstream } from '@nats-io/jetstream';
import { HEADERS, connectNats, worldNames } from '../../src/replication/nats/index.js';
import type { Seen } from './nats-seen.js';
import { freePort } from '../helpers/ports.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const { values } = parseArgs({
  options: {
    clients: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '30' },
    entities: { type: 'string', default: '500' },
    move: { type: 'string', default: '0.01' },
    'kill-at': { type: 'string', default: '10' },
    'restart-at': { type: 'string', default: '20' },
    out: { type: 'string' },
  },
});
const CLIENTS = Number(values.clients);
const SECONDS = Number(values.seconds);
const KILL_AT = Number(values['kill-at']) * 1000;
const RESTART_AT = Number(values['restart-at']) * 1000;
const WORLD = 'scenario';
const NATS_BIN = '/usr/sbin/nats-server';

const children = new Set<ChildProcess>();
function stopAll(): void {
  for (const c of children) if (c.exitCode === null && c.pid !== undefined) process.kill(c.pid, 'SIGKILL');
}
process.on('exit', stopAll);

/** Start a process; `onLine` sees each line of its standard output (and error). */
function start(cmd: string, args: string[], onLine: (l: string) => void): ChildProcess {
  const c = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(c);
  createInterface({ input: c.stdout! }).on('line', onLine);
  createInterface({ input: c.stderr! }).on('line', onLine);
  c.on('exit', () => children.delete(c));
  return c;
}

function waitFor(pred: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  return new Promise((resolve, reject) => {
    const t = setInterval(() => {
      if (pred()) {
        clearInterval(t);
        resolve();
      } else if (Date.now() > end) {
        clearInterval(t);
        reject(new Error(`timed out waiting for ${what}`));
      }
    }, 50);
  });
}

async function stop(c: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (c.exitCode !== null || c.pid === undefined) return;
  const done = new Promise<void>((r) => c.once('exit', () => r()));
  process.kill(c.pid, signal);
  const t = setTimeout(() => c.pid !== undefined && c.exitCode === null && process.kill(c.pid, 'SIGKILL'), 5000);
  await done;
  clearTimeout(t);
}

const store = mkdtempSync(join(tmpdir(), 'tickwire-nats-'));
const natsPort = await freePort();
const natsUrl = `nats://127.0.0.1:${natsPort}`;
let natsReady = 0;
const natsLog: string[] = [];
function startNats(): ChildProcess {
  return start(NATS_BIN, ['-js', '-sd', store, '-a', '127.0.0.1', '-p', String(natsPort)], (l) => {
    natsLog.push(l);
    if (l.includes('Server is ready')) natsReady++;
  });
}

let nats = startNats();
await waitFor(() => natsReady === 1, 15_000, 'nats-server');

// the authority: `T tick hash ms` per tick
const authorityTicks: Array<[number, string, number]> = [];
const authorityLog: string[] = [];
const authority = start(
  process.execPath,
  [
    '--import',
    'tsx',
    'examples/nats-authority.ts',
    '--nats',
    natsUrl,
    '--world',
    WORLD,
    '--entities',
    values.entities!,
    '--move',
    values.move!,
    '--keyframe-every',
    '60',
    '--print-ticks',
  ],
  (l) => {
    if (l.startsWith('T ')) {
      const [, t, h, ms] = l.split(' ');
      authorityTicks.push([Number(t), h!, Number(ms)]);
    } else authorityLog.push(l);
  },
);
await waitFor(() => authorityTicks.length > 0, 60_000, 'the authority');

// three relays
const relayPorts = [await freePort(), await freePort(), await freePort()];
const relayLogs: string[][] = [[], [], []];
const relayUp = [false, false, false];
const relays = relayPorts.map((port, i) =>
  start(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/cli/bin.ts',
      'relay',
      '--nats',
      natsUrl,
      '--world',
      WORLD,
      '--listen',
      `ws://127.0.0.1:${port}`,
      '--name',
      `relay${i}`,
      '--log-every',
      '2',
    ],
    (l) => {
      relayLogs[i]!.push(`${Date.now()} ${l}`);
      if (l.includes('"event":"listening"')) relayUp[i] = true;
    },
  ),
);
await waitFor(() => relayUp.every(Boolean), 60_000, 'three relays listening');

// the clients, in worker processes (so that this process's timers stay on time)
const WORKERS = Math.max(1, Math.min(3, Math.ceil(CLIENTS / 100)));
const workers: Array<{ proc: ChildProcess; ready: boolean; result?: Seen[] }> = [];
for (let w = 0; w < WORKERS; w++) {
  const from = Math.floor((w * CLIENTS) / WORKERS);
  const count = Math.floor(((w + 1) * CLIENTS) / WORKERS) - from;
  const c = spawn(
    process.execPath,
    ['--import', 'tsx', 'test/replication/nats-clients.ts', '--ports', relayPorts.join(','), '--from', String(from), '--count', String(count)],
    { cwd: ROOT, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  children.add(c);
  const wk: (typeof workers)[number] = { proc: c, ready: false };
  workers.push(wk);
  createInterface({ input: c.stdout! }).on('line', (l) => {
    if (l === 'READY') wk.ready = true;
    else if (l.startsWith('RESULT ')) wk.result = JSON.parse(l.slice(7)) as Seen[];
  });
}
await waitFor(() => workers.every((w) => w.ready), 90_000, 'every client mirroring');
const t0 = Date.now();
const events: Record<string, number> = { start: t0 };

await new Promise((r) => setTimeout(r, KILL_AT));
for (const w of workers) w.proc.stdin!.write('dead 0\n');
events.kill = Date.now();
await stop(relays[0]!, 'SIGKILL');

await new Promise((r) => setTimeout(r, Math.max(0, t0 + RESTART_AT - Date.now())));
events.natsStop = Date.now();
await stop(nats, 'SIGTERM');
nats = startNats();
await waitFor(() => natsReady === 2, 15_000, 'nats-server restarted');
events.natsBack = Date.now();

await new Promise((r) => setTimeout(r, Math.max(0, t0 + SECONDS * 1000 - Date.now())));
events.end = Date.now();
for (const w of workers) w.proc.stdin!.write('stop\n');
await waitFor(() => workers.every((w) => w.result !== undefined), 30_000, 'the client workers results');
const seen = workers.flatMap((w) => w.result!);

// the hashes the authority published, read back from the stream
const published: Record<number, string> = {};
const nc = await connectNats(natsUrl, 'scenario-check');
const names = worldNames(WORLD);
const c = await jetstream(nc).consumers.get(names.stream, { headers_only: true });
const info = await c.info();
const last = info.num_pending;
let read = 0;
const it = await c.fetch({ max_messages: last, expires: 10_000 });
for await (const m of it) {
  read++;
  const t = Number(m.headers?.get(HEADERS.tick));
  const h = m.headers?.get(HEADERS.hash);
  if (h) published[t] = h;
  if (read >= last) break;
}
await nc.close();

for (const r of relays.slice(1)) await stop(r);
await stop(authority);
await stop(nats);
rmSync(store, { recursive: true, force: true });

const result = JSON.stringify({
  events,
  published,
  authorityTicks,
  authorityLog,
  relayLogs,
  natsLog: natsLog.filter((l) => /\[(ERR|WRN|FTL)\]/.test(l)),
  clients: seen,
});
if (values.out !== undefined) writeFileSync(values.out, result);
else console.log(`RESULT ${result}`);
process.exit(0);

/**
 * `tickwire relay --clients MODULE`: the relay process gives each WebSocket client the view the module returns.
 * The module here is examples/relay-view.ts (a circle from `?x=&y=&r=`), wrapped to add one client whose interest
 * hook throws for every other ship. An authority in this process moves 80 ships; when it stops and the relay has its
 * last tick, each client holds exactly the ships its view holds, with the authority's values; a bad view is refused
 * (close code 1008 with the reason); the throwing hook hides its ships and is reported once. Debian's nats-server on
 * 127.0.0.1 with a temporary store; skipped without it (a failure under CI=true). Everything binds to and contacts
 * 127.0.0.1 only; the relay process is stopped by its process id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { WebSocket } from 'ws';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { NatsPublisher, connectNats, serveWebSocket, type NatsRelay } from '../../src/replication/nats/index.js';
import { Ship, entities } from '../../examples/nats-world.js';
import { freePort } from '../helpers/ports.js';
import { startNatsServer } from '../helpers/nats-server.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const inside = (v: { x: number; y: number }, c: { x: number; y: number; r: number }) => Math.hypot(v.x - c.x, v.y - c.y) <= c.r;

interface Conn {
  ws: WebSocket;
  mirror: ReplicationClient<typeof entities>;
  errors: number;
  closed?: { code: number; reason: string };
}

function connect(url: string): Promise<Conn> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    const c: Conn = { ws, mirror: new ReplicationClient({ entities }), errors: 0 };
    ws.binaryType = 'arraybuffer';
    ws.on('message', (d) => {
      try {
        c.mirror.receive(new Uint8Array(d as ArrayBuffer));
      } catch {
        c.errors++;
      }
    });
    ws.on('close', (code, reason) => {
      c.closed = { code, reason: reason.toString() };
      resolve(c);
    });
    ws.on('open', () => resolve(c));
    ws.on('error', reject);
  });
}

test('tickwire relay --clients: each client gets the view the module gives it; a bad one is refused', { timeout: 90_000 }, async (t) => {
  const ns = await startNatsServer(t, 'nats-cli-view');
  if (ns === undefined) return;
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-clients-'));
  const mod = join(dir, 'views.mjs');
  writeFileSync(
    mod,
    `import view from ${JSON.stringify(pathToFileURL(join(ROOT, 'examples/relay-view.ts')).href)};
export default (client) => client.path === '/throws' ? { interest: (id) => { if (id % 2 === 0) throw new Error('even ' + id); return true; } } : view(client);
`,
  );
  let relay: ReturnType<typeof spawn> | undefined;
  const log: string[] = [];
  try {
    const server = new ReplicationServer({ entities });
    const ids: number[] = [];
    for (let i = 0; i < 80; i++) ids.push(server.spawn(Ship, { x: (i % 10) * 100, y: Math.floor(i / 10) * 100, hp: i, name: `s${i}`, heading: 0 }));
    const anc = await connectNats(ns.url);
    const pub = await NatsPublisher.start(anc, server, { world: 'cliview', storage: 'memory', keyframeEvery: 20 });
    let n = 0;
    const timer = setInterval(() => {
      n++;
      for (const [i, id] of ids.entries())
        server.set(id, { x: (i % 10) * 100 + Math.cos(n / 5 + i) * 40, y: Math.floor(i / 10) * 100 + Math.sin(n / 5 + i) * 40, heading: (n * 7.5) % 360 });
      server.tick();
      pub.publish();
    }, 20);
    const wsPort = await freePort();
    relay = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/bin.ts', 'relay', '--nats', ns.url, '--world', 'cliview', '--listen', `ws://127.0.0.1:${wsPort}`, '--clients', mod],
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let buf = '';
    relay.stdout!.on('data', (d) => {
      buf += d;
      const lines = buf.split('\n');
      buf = lines.pop()!;
      log.push(...lines);
    });
    relay.stderr!.on('data', (d) => log.push(`stderr: ${d}`));
    for (let i = 0; i < 600 && !log.some((l) => l.includes('"event":"listening"')); i++) await sleep(50);
    assert.ok(
      log.some((l) => l.includes('"event":"listening"')),
      `the relay is listening:\n${log.join('\n')}`,
    );

    const views = [
      { x: 250, y: 250, r: 180 },
      { x: 700, y: 500, r: 260 },
      { x: -500, y: -500, r: 100 }, // sees nothing
    ];
    const base = `ws://127.0.0.1:${wsPort}`;
    const clients = await Promise.all(views.map((v) => connect(`${base}/?x=${v.x}&y=${v.y}&r=${v.r}`)));
    const all = await connect(`${base}/`);
    const throws = await connect(`${base}/throws`);
    const bad = await connect(`${base}/?x=1&y=2&r=-5`);
    for (let i = 0; i < 100 && bad.closed === undefined; i++) await sleep(20);
    assert.equal(bad.closed?.code, 1008, 'a bad view: the WebSocket is closed with 1008');
    assert.match(bad.closed!.reason, /a view needs finite x, y and r >= 0/);

    await sleep(1500);
    clearInterval(timer);
    const last = server.currentTick;
    const conns = [...clients, all, throws];
    for (let i = 0; i < 300 && conns.some((c) => c.mirror.tick < last); i++) await sleep(20);
    const sorted = (xs: Iterable<number>) => [...xs].sort((a, b) => a - b);
    const check = (c: Conn, want: number[], what: string) => {
      assert.equal(c.errors, 0, `${what}: no packet refused`);
      assert.equal(c.mirror.tick, last, `${what}: at the authority's last tick`);
      assert.deepEqual(sorted(c.mirror.entities.keys()), want, `${what}: the ships it holds`);
      for (const id of want) assert.deepEqual(c.mirror.entities.get(id)!.values, server.get(id)!.values, `${what}: ship ${id}`);
    };
    for (const [i, c] of clients.entries())
      check(c, sorted(ids.filter((id) => inside(server.get(id)!.values as { x: number; y: number }, views[i]!))), `view ${JSON.stringify(views[i])}`);
    assert.ok(clients[0]!.mirror.entities.size >= 4 && clients[1]!.mirror.entities.size >= 10 && clients[2]!.mirror.entities.size === 0);
    check(all, sorted(ids), 'no view');
    check(throws, sorted(ids.filter((id) => id % 2 !== 0)), 'a hook that throws for even ids');
    const errs = log.filter((l) => l.includes('"event":"error"'));
    assert.equal(errs.length, 1, `one error line for the throwing hook:\n${errs.join('\n')}`);
    assert.match(errs[0]!, /--clients: the interest of ws client .* threw: even \d+/);
    for (const c of conns) c.ws.close();
    pub.close();
    await anc.close();
  } finally {
    if (relay !== undefined && relay.exitCode === null) {
      const exited = new Promise((r) => relay!.once('exit', r));
      relay.kill('SIGTERM');
      await Promise.race([exited, sleep(5000)]);
      if (relay.exitCode === null && relay.signalCode === null) relay.kill('SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
    await ns.stop();
  }
});

test('serveWebSocket: client options of the wrong shape refuse the client (1008), before it is added', async () => {
  const listeners: Array<() => void> = [];
  const relay = { onTick: (f: () => void) => listeners.push(f), onReset: () => {} } as unknown as NatsRelay;
  const bad: Record<string, unknown> = {
    '/number': 5,
    '/interest': { interest: 5 },
    '/every': { interest: () => true, interestEvery: 'sometimes' },
    '/owner': { owner: {} },
  };
  const port = await freePort();
  const l = await serveWebSocket(relay, { host: '127.0.0.1', port, clientOptions: ({ path }) => bad[path!] as never });
  try {
    const got: Record<string, string> = {};
    for (const path of Object.keys(bad)) {
      const c = await connect(`ws://127.0.0.1:${port}${path}`);
      for (let i = 0; i < 100 && c.closed === undefined; i++) await sleep(10);
      got[path] = `${c.closed?.code} ${c.closed?.reason}`;
    }
    assert.deepEqual(got, {
      '/number': '1008 client options must be an object, not number',
      '/interest': '1008 interest must be a function (id, values) => boolean',
      '/every': "1008 interestEvery must be 'tick' or 'change'",
      '/owner': '1008 owner must be a string or a number',
    });
    assert.equal(l.clients(), 0);
  } finally {
    await l.close();
  }
});

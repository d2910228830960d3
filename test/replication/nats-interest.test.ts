/**
 * Interest through a relay (issue 20: every client's mirror equals the authority's world as that client sees it):
 * the relay serves WebSocket clients whose view is a circle given in their URL (`?x=&y=&r=`, through
 * `serveWebSocket`'s `clientOptions`). The authority moves 80 ships; when it stops and the relay has its last tick,
 * each client holds exactly the ships inside its circle, with the authority's values. Debian's nats-server on
 * 127.0.0.1 with a temporary store; skipped without it (a failure under CI=true). Everything binds to and contacts
 * 127.0.0.1 only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WebSocket } from 'ws';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { NatsPublisher, NatsRelay, connectNats, serveWebSocket } from '../../src/replication/nats/index.js';
import { Ship, entities } from '../../examples/nats-world.js';
import { freePort } from '../helpers/ports.js';
import { startNatsServer } from '../helpers/nats-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Inside the circle of (x, y, r): the test's own reading of what a view holds. */
const inside = (v: { x: number; y: number }, c: { x: number; y: number; r: number }) => Math.hypot(v.x - c.x, v.y - c.y) <= c.r;

test('interest through a relay: each client holds exactly the ships in its view, with the authority’s values', { timeout: 60_000 }, async (t) => {
  const ns = await startNatsServer(t, 'nats-view');
  if (ns === undefined) return;
  const natsPort = ns.port;
  try {
    const server = new ReplicationServer({ entities });
    const ids: number[] = [];
    // 80 ships on a 10 × 8 grid, 100 apart, each circling its own point: they cross the views' edges
    for (let i = 0; i < 80; i++) ids.push(server.spawn(Ship, { x: (i % 10) * 100, y: Math.floor(i / 10) * 100, hp: i, name: `s${i}`, heading: 0 }));
    const anc = await connectNats(`nats://127.0.0.1:${natsPort}`);
    const pub = await NatsPublisher.start(anc, server, { world: 'view', storage: 'memory', keyframeEvery: 20 });
    let n = 0;
    const step = () => {
      n++;
      for (const [i, id] of ids.entries())
        server.set(id, { x: (i % 10) * 100 + Math.cos(n / 5 + i) * 40, y: Math.floor(i / 10) * 100 + Math.sin(n / 5 + i) * 40, heading: (n * 7.5) % 360 });
      server.tick();
      pub.publish();
    };
    const timer = setInterval(step, 20);
    const rnc = await connectNats(`nats://127.0.0.1:${natsPort}`);
    const relay = new NatsRelay(rnc, { world: 'view', name: 'relay-v' });
    await relay.start();
    await Promise.race([relay.loaded, sleep(20_000).then(() => assert.fail('the relay got no keyframe'))]);
    const wsPort = await freePort();
    const listener = await serveWebSocket(relay, {
      port: wsPort,
      host: '127.0.0.1',
      clientOptions: ({ path }) => {
        const q = new URL(path ?? '/', 'ws://x').searchParams;
        const c = { x: Number(q.get('x')), y: Number(q.get('y')), r: Number(q.get('r')) };
        return { interest: (_id, v) => inside(v as { x: number; y: number }, c) };
      },
    });
    const views = [
      { x: 250, y: 250, r: 180 },
      { x: 700, y: 500, r: 260 },
      { x: -500, y: -500, r: 100 }, // sees nothing
    ];
    const clients = await Promise.all(
      views.map(
        (c) =>
          new Promise<{ ws: WebSocket; mirror: ReplicationClient<typeof entities>; view: typeof c; errors: number[] }>((resolve, reject) => {
            const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/?x=${c.x}&y=${c.y}&r=${c.r}`);
            const mirror = new ReplicationClient({ entities });
            const errors: number[] = [];
            ws.binaryType = 'arraybuffer';
            ws.on('message', (d) => {
              try {
                mirror.receive(new Uint8Array(d as ArrayBuffer));
              } catch {
                errors.push(1);
              }
            });
            ws.on('open', () => resolve({ ws, mirror, view: c, errors }));
            ws.on('error', reject);
          }),
      ),
    );
    await sleep(1500);
    clearInterval(timer);
    const last = server.currentTick;
    for (let i = 0; i < 200 && (relay.tick < last || clients.some((c) => c.mirror.tick < last)); i++) await sleep(20);
    assert.equal(relay.tick, last, 'the relay reached the authority’s last tick');
    let seen = 0;
    for (const c of clients) {
      assert.deepEqual(c.errors, []);
      assert.equal(c.mirror.tick, last, `view ${JSON.stringify(c.view)}: at the last tick`);
      const want = ids.filter((id) => inside(server.get(id)!.values as { x: number; y: number }, c.view)).sort((a, b) => a - b);
      const got = [...c.mirror.entities.keys()].sort((a, b) => a - b);
      assert.deepEqual(got, want, `view ${JSON.stringify(c.view)}: the ships it holds`);
      for (const id of got) assert.deepEqual(c.mirror.entities.get(id)!.values, server.get(id)!.values, `ship ${id}`);
      seen += got.length;
    }
    assert.equal(clients[2]!.mirror.entities.size, 0);
    assert.ok(clients[0]!.mirror.entities.size >= 4 && clients[1]!.mirror.entities.size >= 10 && seen < 80, `${seen} ships seen in all`);
    for (const c of clients) c.ws.close();
    await listener.close();
    await relay.close();
    pub.close();
    await rnc.close();
    await anc.close();
  } finally {
    await ns.stop();
  }
});

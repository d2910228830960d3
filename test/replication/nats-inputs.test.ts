/**
 * Inputs from clients travel back to the authority on a plain NATS subject (issue 20): a WebSocket client of a
 * relay sends input bytes, and the authority's `onInput` gets each one, in order, with the relay's name and the
 * client's key; acknowledgements (the ack magic) stay with the relay. Debian's nats-server on 127.0.0.1 with a
 * temporary store; skipped without it (a failure under CI=true). Everything binds to and contacts 127.0.0.1 only.
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

test('inputs from a relay’s clients reach the authority’s onInput, in order, with the relay and client named; acks stay with the relay', {
  timeout: 60_000,
}, async (t) => {
  const ns = await startNatsServer(t, 'nats-in');
  if (ns === undefined) return;
  const natsPort = ns.port;
  try {
    const server = new ReplicationServer({ entities });
    for (let i = 0; i < 5; i++) server.spawn(Ship, { x: i, y: 0, hp: 1, name: `s${i}` });
    const anc = await connectNats(`nats://127.0.0.1:${natsPort}`);
    const got: { data: number[]; relay: string; client: string }[] = [];
    const pub = await NatsPublisher.start(anc, server, {
      world: 'inputs',
      storage: 'memory',
      onInput: (data, from) => got.push({ data: [...data], ...from }),
    });
    const timer = setInterval(() => {
      server.tick();
      pub.publish();
    }, 20);
    const rnc = await connectNats(`nats://127.0.0.1:${natsPort}`);
    const relay = new NatsRelay(rnc, { world: 'inputs', name: 'relay-a' });
    await relay.start();
    await Promise.race([relay.loaded, sleep(20_000).then(() => assert.fail('the relay got no keyframe'))]);
    const wsPort = await freePort();
    const listener = await serveWebSocket(relay, { port: wsPort, host: '127.0.0.1' });
    // two clients: each sends its inputs (first byte not the ack magic) and, between them, an ack
    const clients = await Promise.all(
      [0, 1].map(
        () =>
          new Promise<{ ws: WebSocket; mirror: ReplicationClient<typeof entities> }>((resolve, reject) => {
            const ws = new WebSocket(`ws://127.0.0.1:${wsPort}/`);
            const mirror = new ReplicationClient({ entities });
            ws.binaryType = 'arraybuffer';
            ws.on('message', (d) => mirror.receive(new Uint8Array(d as ArrayBuffer)));
            ws.on('open', () => resolve({ ws, mirror }));
            ws.on('error', reject);
          }),
      ),
    );
    for (let i = 0; i < 200 && clients.some((c) => c.mirror.tick === 0); i++) await sleep(20);
    assert.ok(
      clients.every((c) => c.mirror.entities.size === 5),
      'both clients mirror the world',
    );
    for (let i = 0; i < 10; i++)
      for (const [k, c] of clients.entries()) {
        c.ws.send(new Uint8Array([0x10 + k, i, 0xaa]));
        if (i === 5) c.ws.send(c.mirror.ack());
      }
    for (let i = 0; i < 100 && got.length < 20; i++) await sleep(50);
    clearInterval(timer);
    assert.equal(got.length, 20, `inputs the authority got: ${JSON.stringify(got)}`);
    const keys = [...new Set(got.map((g) => g.client))].sort();
    assert.equal(keys.length, 2, 'two clients named');
    for (const g of got) assert.equal(g.relay, 'relay-a');
    for (const key of keys) {
      const mine = got.filter((g) => g.client === key);
      const k = mine[0]!.data[0]! - 0x10;
      // in the order sent, none lost, none taken for an ack, no ack taken for an input
      assert.deepEqual(
        mine.map((g) => g.data),
        Array.from({ length: 10 }, (_, i) => [0x10 + k, i, 0xaa]),
      );
    }
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

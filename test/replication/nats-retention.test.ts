/**
 * A relay cut off from NATS (a TCP proxy in between, closed for a while) while
 * the authority publishes more than the stream keeps: when it comes back it
 * says what JetStream's retention lost (`lost`), resynchronises from a
 * keyframe, and its world equals the authority's again. Debian's nats-server
 * on 127.0.0.1 with a temporary store; skipped without it. Everything binds to
 * and contacts 127.0.0.1 only.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect as tcpConnect, createServer, type Server, type Socket } from 'node:net';
import { ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { NatsPublisher, NatsRelay, connectNats, viewHash, type RelayEvent } from '../../src/replication/nats/index.js';
import { Ship, entities } from '../../examples/nats-world.js';
import { freePort } from '../helpers/ports.js';
import { startNatsServer } from '../helpers/nats-server.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A TCP proxy 127.0.0.1:port → 127.0.0.1:target that can cut every connection and refuse new ones for a while. */
function proxy(port: number, target: number): { cut(): void; restore(): void; close(): void } {
  const socks = new Set<Socket>();
  let server: Server | undefined;
  const listen = () => {
    server = createServer((a) => {
      const b = tcpConnect(target, '127.0.0.1');
      socks.add(a).add(b);
      a.pipe(b).pipe(a);
      const end = () => {
        a.destroy();
        b.destroy();
        socks.delete(a);
        socks.delete(b);
      };
      a.on('error', end).on('close', end);
      b.on('error', end).on('close', end);
    }).listen(port, '127.0.0.1');
  };
  listen();
  return {
    cut: () => {
      server?.close();
      server = undefined;
      for (const s of socks) s.destroy();
    },
    restore: listen,
    close: () => {
      server?.close();
      for (const s of socks) s.destroy();
    },
  };
}

test('a relay away longer than JetStream keeps says what was lost, resyncs from a keyframe, and mirrors the authority again', {
  timeout: 90_000,
}, async (t) => {
  const ns = await startNatsServer(t, 'nats-ret');
  if (ns === undefined) return;
  const natsPort = ns.port;
  const proxyPort = await freePort();
  const px = proxy(proxyPort, natsPort);
  try {
    const server = new ReplicationServer({ entities });
    const ids: number[] = [];
    for (let i = 0; i < 50; i++) ids.push(server.spawn(Ship, { x: i, y: -i, hp: i, name: `s${i}` }));
    const anc = await connectNats(`nats://127.0.0.1:${natsPort}`);
    const pub = await NatsPublisher.start(anc, server, { world: 'ret', keyframeEvery: 10, maxMsgs: 30, storage: 'memory' });
    const hashes = new Map<number, number>();
    let n = 0;
    const step = () => {
      n++;
      for (const id of ids) if ((id + n) % 4 === 0) server.set(id, { x: n + id, hp: (n + id) % 256 });
      const tick = server.tick();
      const h = viewHash(ids.map((id) => [id, server.get(id)!] as [number, { type: string; values: Record<string, unknown> }]));
      hashes.set(tick, h);
      pub.publish(h);
    };
    const timer = setInterval(step, 20);
    const events: RelayEvent[] = [];
    const rnc = await connectNats(`nats://127.0.0.1:${proxyPort}`);
    const relay = new NatsRelay(rnc, { world: 'ret', onEvent: (e) => events.push(e) });
    await relay.start();
    await Promise.race([relay.loaded, sleep(30_000).then(() => assert.fail(`no keyframe: ${JSON.stringify(events)}`))]);
    await sleep(500);
    const before = relay.tick;
    assert.ok(before > 0);
    // away for 2 s: about 100 ticks (a delta each, a keyframe every 10), the stream keeps 30 messages
    px.cut();
    await sleep(2000);
    px.restore();
    for (let i = 0; i < 100 && !events.some((e) => e.type === 'resync'); i++) await sleep(100);
    await sleep(500);
    clearInterval(timer);
    await sleep(300);
    const lost = events.filter((e): e is Extract<RelayEvent, { type: 'lost' }> => e.type === 'lost');
    // how many went depends on how many ticks the authority made while the relay was away (fewer on a loaded machine)
    assert.ok(lost.length > 0 && lost[0]!.count > 0, `a lost event: ${JSON.stringify(events.filter((e) => e.type !== 'consumer'))}`);
    assert.equal(
      relay.stats.lost,
      lost.reduce((n, e) => n + e.count, 0),
    );
    assert.ok(
      events.some((e) => e.type === 'resync'),
      'resynced',
    );
    // the relay's world (as a new client of it sees it) is the authority's at the relay's tick
    const srv = relay.serverFor('reliable')!;
    srv.addClient('check');
    const c = new ReplicationClient({ entities });
    const r = c.receive(srv.packetFor('check'));
    assert.equal(r.deferred, 0);
    assert.ok(relay.tick > before + 20, `relay at ${relay.tick}, was ${before}`);
    assert.equal(viewHash(c.entities), hashes.get(relay.tick), `tick ${relay.tick}`);
    assert.equal(relay.authorityHash, hashes.get(relay.tick));
    await relay.close();
    pub.close();
    await rnc.close();
    await anc.close();
  } finally {
    px.close();
    await ns.stop();
  }
});

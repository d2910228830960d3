import { test } from 'node:test';
import assert from 'node:assert/strict';
import { t, defineEntity, LossyLink, ReplicationClient, ReplicationServer, readPacketHeader } from '../../src/replication/index.js';
import { rng } from '../helpers/rng.js';
import { DecodeError, EncodeError } from '../../src/core/errors.js';

const Dot = defineEntity('Dot', { x: t.f32(), y: t.f32() });
const entities = [Dot] as const;

test('interest is re-run every tick: a moving viewpoint brings still entities in and out', () => {
  const server = new ReplicationServer({ session: 1, entities });
  const client = new ReplicationClient({ entities });
  const view = { x: 0 };
  server.addClient('c', { interest: (_id, v) => Math.abs((v.x as number) - view.x) <= 10 });
  const ids = Array.from({ length: 100 }, (_, i) => server.spawn(Dot, { x: i * 5, y: 0 }));
  const step = (): void => {
    server.tick();
    client.receive(server.packetFor('c'));
    server.receive('c', client.ack());
  };
  const seen = (): number[] => [...client.entities.keys()].sort((a, b) => a - b);
  step();
  assert.deepEqual(seen(), ids.slice(0, 3)); // x = 0, 5, 10
  // no entity changes: only the viewpoint moves, one step per tick
  for (let k = 1; k <= 50; k++) {
    view.x = k * 5;
    step();
    const lo = Math.max(0, k - 2);
    assert.deepEqual(seen(), ids.slice(lo, k + 3), `viewpoint at x = ${view.x}`);
  }
  view.x = 1000;
  step();
  assert.equal(client.entities.size, 0);
});

test("refreshInterest: with interestEvery 'change' a moving viewpoint needs a refresh", () => {
  const server = new ReplicationServer({ session: 1, entities });
  const client = new ReplicationClient({ entities });
  const view = { x: 0 };
  server.addClient('c', { interest: (_id, v) => Math.abs((v.x as number) - view.x) <= 10, interestEvery: 'change' });
  const ids = Array.from({ length: 100 }, (_, i) => server.spawn(Dot, { x: i * 5, y: 0 }));
  const step = (): void => {
    server.tick();
    client.receive(server.packetFor('c'));
    server.receive('c', client.ack());
  };
  step();
  assert.deepEqual(
    [...client.entities.keys()].sort((a, b) => a - b),
    ids.slice(0, 3),
  ); // x = 0, 5, 10
  view.x = 250;
  step(); // nothing changed and no refresh: the view stays
  assert.equal(client.entities.size, 3);
  server.refreshInterest('c');
  const before = client.tick;
  step();
  assert.equal(client.tick, before + 1);
  assert.deepEqual(
    [...client.entities.keys()].sort((a, b) => a - b),
    ids.slice(48, 53),
  ); // x = 240..260
});

test('memory stays bounded by the window on both sides over a long lossy run', () => {
  const window = 8;
  const server = new ReplicationServer({ session: 1, entities, baselineWindow: window });
  const client = new ReplicationClient({ entities, window });
  const down = new LossyLink({ loss: 0.3, reorder: 0.3, duplicate: 0.2, latency: 1, seed: 3 });
  const up = new LossyLink({ loss: 0.3, reorder: 0.3, duplicate: 0.2, latency: 1, seed: 4 });
  server.addClient('c');
  const r = rng(9);
  const ids: number[] = [];
  for (let i = 0; i < 50; i++) ids.push(server.spawn(Dot, { x: i, y: 0 }));
  let maxHist = 0;
  for (let k = 0; k < 2000; k++) {
    for (let i = 0; i < 10; i++) server.set(ids[Math.floor(r() * ids.length)]!, { x: r() * 100, y: r() });
    if (r() < 0.2) {
      server.despawn(ids.shift()!);
      ids.push(server.spawn(Dot, { x: r(), y: r() }));
    }
    server.tick();
    down.send(server.packetFor('c'));
    for (const p of down.deliver()) client.receive(p);
    up.send(client.ack());
    for (const a of up.deliver()) server.receive('c', a);
    assert.ok(server.clientStats('c').nodes <= window);
    if (k > 100) maxHist = Math.max(maxHist, client.historySize());
  }
  // 50 live entities, each with at most window + 1 versions, plus the applied-tick list
  assert.ok(maxHist <= 50 * (window + 2) + window + 20, `client history ${maxHist}`);
  assert.ok(client.tick > 1900, `client only reached ${client.tick}`);
});

test('a client that stops acknowledging (or never does) does not hold the history back: it stays within the window', () => {
  for (const delivery of ['acked', 'reliable'] as const) {
    const U = defineEntity('U', { x: t.u16() });
    const server = new ReplicationServer({ session: 1, entities: [U], delivery, baselineWindow: 16 });
    const ids = Array.from({ length: 50 }, () => server.spawn(U, { x: 1 }));
    // a: acks the first packet, then nothing; b: never acks; c: asks for one packet only (reliable: its last packet stays old)
    for (const k of ['a', 'b', 'c']) server.addClient(k);
    const client = new ReplicationClient({ entities: [U] });
    server.tick();
    client.receive(server.packetFor('a'));
    server.receive('a', client.ack());
    server.packetFor('c');
    const hist = (server as unknown as { hist: { head: number; tail: number } }).hist;
    let most = 0;
    for (let k = 0; k < 2000; k++) {
      for (const id of ids) server.set(id, { x: k & 0xffff });
      server.tick();
      server.packetFor('a');
      server.packetFor('b');
      most = Math.max(most, hist.tail - hist.head);
    }
    // one row per changed entity per tick, for the window's ticks at most (an unbounded history: 100,000 rows)
    assert.ok(most <= 50 * 17, `${delivery}: ${most} undo rows live`);
    // and the stale client still gets a correct full state when it comes back
    const fresh = new ReplicationClient({ entities: [U] });
    fresh.receive(server.packetFor('c'));
    for (const id of ids) assert.equal(fresh.entities.get(id)?.values.x, 1999);
  }
});

test('removeClient forgets the client; packetFor of an unknown client throws', () => {
  const server = new ReplicationServer({ session: 1, entities });
  server.addClient('a');
  server.spawn(Dot, {});
  server.tick();
  server.packetFor('a');
  server.removeClient('a');
  assert.throws(() => server.packetFor('a'), /no such client/);
  server.addClient('b');
  assert.throws(() => server.addClient('b'), /already added/);
  // integer keys (found by index up to 4095, in the map past it), -0 the same key as 0, 1.5 and -1 keys of their own
  for (const k of [0, 7, 4095, 4096, 1e6, 1.5, -1]) {
    server.addClient(k);
    assert.throws(() => server.addClient(k), /already added/, String(k));
    assert.ok(server.packetFor(k) instanceof Uint8Array);
  }
  assert.throws(() => server.addClient(-0), /already added/);
  assert.throws(() => server.receive(8, new Uint8Array(6)), /no such client/);
  for (const k of [0, 7, 4095, 4096, 1e6, 1.5, -1]) {
    server.removeClient(k);
    assert.throws(() => server.packetFor(k), /no such client/, String(k));
    assert.throws(() => server.receive(k, new Uint8Array(6)), /no such client/, String(k));
  }
  server.addClient(7);
  assert.ok(server.packetFor(7) instanceof Uint8Array);
});

test('a client added after another was removed inherits none of its packets: an ack of a tick sent only to the old one is ignored', () => {
  const server = new ReplicationServer({ session: 1, entities });
  const ids = Array.from({ length: 5 }, (_, i) => server.spawn(Dot, { x: i }));
  // 70 clients (past the sent store's first 64 columns), 30 of them removed and replaced, over and over
  for (let c = 0; c < 70; c++) server.addClient(`c${c}`);
  let gen = 0;
  for (let k = 1; k <= 40; k++) {
    server.set(ids[k % 5]!, { x: k });
    server.tick();
    for (let c = 0; c < 70; c++) {
      server.packetFor(`c${c}`);
      server.receive(`c${c}`, ackFor(server.hash, k));
    }
    if (k % 10 === 0) {
      gen++;
      for (let c = 0; c < 30; c++) {
        server.removeClient(`c${c}`);
        server.addClient(`c${c}`);
        // the new client claims the tick just sent to the old one: not a tick it was sent, ignored
        server.receive(`c${c}`, ackFor(server.hash, k));
        assert.equal(server.clientStats(`c${c}`).ackedTick, -1, `gen ${gen} client c${c}`);
      }
    }
  }
  // a replaced client's next packet is a full state: a fresh mirror takes it and has every entity
  server.tick();
  const fresh = new ReplicationClient({ entities });
  fresh.receive(server.packetFor('c3'));
  assert.deepEqual(
    [...fresh.entities.keys()].sort((a, b) => a - b),
    ids,
  );
  assert.equal(gen, 4);
});

test('64 clients that acked the same tick share one packet (same bytes object)', () => {
  const server = new ReplicationServer({ session: 1, entities });
  const clients = Array.from({ length: 64 }, () => new ReplicationClient({ entities }));
  clients.forEach((_, i) => server.addClient(i));
  const ids = Array.from({ length: 200 }, (_, i) => server.spawn(Dot, { x: i }));
  for (let k = 0; k < 5; k++) {
    for (const id of ids) if ((id + k) % 3 === 0) server.set(id, { x: id + k });
    server.tick();
    const packets = clients.map((c, i) => {
      const p = server.packetFor(i);
      c.receive(p);
      server.receive(i, c.ack());
      return p;
    });
    assert.equal(new Set(packets).size, 1, `tick ${k}: ${new Set(packets).size} distinct packets`);
  }
});

test('packets are views of shared slabs that later packets never overwrite (kept packets keep their bytes)', () => {
  const D = defineEntity('D', { x: t.u32(), s: t.string(40) });
  const server = new ReplicationServer({ session: 1, entities: [D], mtu: 1 << 16 });
  for (let c = 0; c < 3; c++) server.addClient(c);
  const ids = Array.from({ length: 50 }, (_, i) => server.spawn(D, { x: i, s: 'x'.repeat(i % 40) }));
  const kept: { p: Uint8Array; copy: number[] }[] = [];
  let shared = 0;
  for (let k = 1; k <= 400; k++) {
    for (const id of ids) if ((id + k) % 3 === 0) server.set(id, { x: k * id, s: String(k).repeat(1 + (k % 9)) });
    server.tick();
    for (let c = 0; c < 3; c++) {
      const p = server.packetFor(c);
      if (p.byteLength !== p.buffer.byteLength) shared++;
      kept.push({ p, copy: [...p] });
      // client 0 acks everything, the others now and then: packets against several baselines
      if (c === 0 || k % (c + 2) === 0) server.receive(c, ackFor(server.hash, k));
    }
  }
  for (const { p, copy } of kept) assert.deepEqual([...p], copy);
  assert.ok(shared > 1000, `${shared} packets in shared buffers`);
});

/** The ack of `tick` to a server of schema `hash` and session 1 (the session of every test server here). */
function ackFor(hash: number, tick: number, session = 1): Uint8Array {
  const b = [0xb2, hash & 0xff, (hash >>> 8) & 0xff, (hash >>> 16) & 0xff, hash >>> 24];
  b.push(session & 0xff, (session >>> 8) & 0xff, (session >>> 16) & 0xff, session >>> 24);
  for (; tick >= 0x80; tick = Math.floor(tick / 128)) b.push((tick % 128) | 0x80);
  b.push(tick);
  return Uint8Array.from(b);
}

test('many interest views (the tick log split by view once, see addSeen): 70 clients, slots freed and taken again, some acking late; every mirror is its view of the world', () => {
  const server = new ReplicationServer({ session: 1, entities, mtu: Infinity });
  const r = rng(77);
  const ids = Array.from({ length: 300 }, (_, i) => server.spawn(Dot, { x: i, y: 0 }));
  // client k sees the entities whose x is within its band (bands overlap: an entity is in several views)
  const band = (k: number): [number, number] => [(k * 37) % 280, ((k * 37) % 280) + 20 + (k % 5) * 10];
  type C = { k: number; c: ReplicationClient<typeof entities>; lag: number };
  const clients = new Map<string, C>();
  let nextK = 0;
  const add = (): void => {
    const k = nextK++;
    const [lo, hi] = band(k);
    server.addClient(`c${k}`, { interest: (_id, v) => (v.x as number) >= lo && (v.x as number) < hi, interestEvery: k % 3 === 0 ? 'tick' : 'change' });
    clients.set(`c${k}`, { k, c: new ReplicationClient({ entities }), lag: k % 4 === 0 ? 3 : 1 });
  };
  for (let i = 0; i < 70; i++) add();
  let checked = 0;
  for (let tick = 1; tick <= 150; tick++) {
    // a tenth of the entities move (in and out of bands)
    for (const id of ids) if (r() < 0.1) server.set(id, { x: Math.floor(r() * 300), y: tick });
    // now and then a client leaves and another comes (it may take the slot just freed)
    if (tick % 10 === 0) {
      const gone = [...clients.keys()][Math.floor(r() * clients.size)]!;
      server.removeClient(gone);
      clients.delete(gone);
      add();
    }
    server.tick();
    for (const [key, s] of clients) {
      const res = s.c.receive(server.packetFor(key));
      if (res.ignored || res.deferred > 0) continue;
      const [lo, hi] = band(s.k);
      const want = ids.filter((id) => {
        const x = server.get(id)!.values.x as number;
        return x >= lo && x < hi;
      });
      assert.deepEqual(
        [...s.c.entities.keys()].sort((a, b) => a - b),
        want,
        `tick ${tick}, ${key}`,
      );
      for (const id of want) assert.deepEqual(s.c.entities.get(id)!.values, server.get(id)!.values, `tick ${tick}, ${key}, id ${id}`);
      checked++;
      // some clients ack every third tick only: their packets are against older baselines (more than one tick's log)
      if (tick % s.lag === 0) server.receive(key, s.c.ack());
    }
  }
  assert.ok(checked > 9000, `${checked} mirrors checked`);
});

test('mtu must be a number: an integer the records fit in, or Infinity (NaN or a numeric string would turn the limit off)', () => {
  const A = defineEntity('A', { x: t.f32(), hp: t.u8() });
  for (const mtu of [Number.NaN, '1200', 1200.5, -1, 0, 25, Number.NEGATIVE_INFINITY]) {
    assert.throws(
      () => new ReplicationServer({ session: 1, entities: [A], mtu: mtu as number }),
      (e: unknown) => e instanceof EncodeError && e.path === 'mtu',
      `mtu ${String(mtu)}`,
    );
  }
  for (const mtu of [1200, 60, Number.POSITIVE_INFINITY, undefined]) {
    const s = new ReplicationServer({ session: 1, entities: [A], mtu });
    s.addClient(1);
    for (let i = 0; i < 300; i++) s.spawn(A, { x: i, hp: 1 });
    s.tick();
    const n = s.packetFor(1).length;
    if (mtu === Number.POSITIVE_INFINITY) assert.ok(n > 1200, 'no limit');
    else assert.ok(n <= (mtu ?? 1200), `mtu ${mtu}: packet ${n} bytes`);
  }
});

test('a server restarted with the same schema (its ticks from 1 again): the client starts again from its full state, never applies its deltas to the old world', () => {
  const A = defineEntity('A', { hp: t.u8() });
  const client = new ReplicationClient({ entities: [A] });
  const s1 = new ReplicationServer({ entities: [A] });
  s1.addClient('c');
  s1.spawn(A, { hp: 1 });
  s1.spawn(A, { hp: 2 });
  const late: Uint8Array[] = [];
  for (let k = 0; k < 5; k++) {
    s1.tick();
    const p = s1.packetFor('c');
    late.push(p);
    client.receive(p);
    s1.receive('c', client.ack());
  }
  const old1 = client.entities.get(1)!;
  assert.equal(client.tick, 5);
  assert.equal(client.session, s1.session);
  // the restart: another server object, another session, another world, the same tick numbers
  const s2 = new ReplicationServer({ entities: [A] });
  assert.notEqual(s2.session, s1.session);
  s2.addClient('c');
  const id = s2.spawn(A, { hp: 9 });
  const seen: string[] = [];
  for (let k = 1; k <= 8; k++) {
    if (k === 7) s2.set(id, { hp: 10 });
    s2.tick();
    const r = client.receive(s2.packetFor('c'));
    seen.push(`${r.tick}:${r.ignored ?? `+${r.spawned}-${r.despawned}~${[...r.changed.keys()]}`}`);
    // the mirror is the new server's world after every packet it applies
    if (r.ignored === undefined)
      assert.deepEqual(
        [...client.entities].map(([i, e]) => [i, e.values.hp]),
        [[id, s2.get(id)!.values.hp]],
        `tick ${k}`,
      );
    s2.receive('c', client.ack());
    // the old server's packets still on their way are the past
    if (k <= late.length) assert.equal(client.receive(late[k - 1]!).ignored, 'old');
  }
  // its first full state applies at once, whatever its tick: the old entities go, entity 1 is a new one (renewed)
  assert.equal(seen[0], '1:+1-1,2~');
  assert.notEqual(client.entities.get(1), old1);
  assert.equal(client.session, s2.session);
  // then deltas against its own ticks, the change at tick 7 on the new value (it landed on the old one's hp 2 before)
  assert.deepEqual(seen.slice(1), ['2:+-~', '3:+-~', '4:+-~', '5:+-~', '6:+-~', `7:+-~${id}`, '8:+-~']);
  assert.equal(client.entities.get(id)!.values.hp, 10);
  // a server takes only acks of its own session: the old one, still running, sent tick 6 and takes no ack of it from
  // a client that follows another server
  s1.tick();
  const p6 = s1.packetFor('c');
  assert.equal(readPacketHeader(p6).session, s1.session);
  assert.equal(s1.clientStats('c').ackedTick, 5);
  s1.receive('c', ackFor(s1.hash, 6, s2.session));
  assert.equal(s1.clientStats('c').ackedTick, 5);
  s1.receive('c', ackFor(s1.hash, 6, s1.session));
  assert.equal(s1.clientStats('c').ackedTick, 6);
  assert.equal(client.receive(p6).ignored, 'old');
});

test('the worked example of docs/replication-wire.md is what the engine sends and acks, byte for byte', async () => {
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../../docs/replication-wire.md', import.meta.url), 'utf8');
  const lines = [...doc.matchAll(/^(b[12](?: +[0-9a-f]{2})+)\s*$|`(b2(?: +[0-9a-f]{2})+)`/gm)].map((m) => (m[1] ?? m[2]!).replace(/ +/g, ''));
  const Ball = defineEntity('Ball', { x: t.f32(), hp: t.u8() });
  const s = new ReplicationServer({ entities: [Ball], session: 0x0badf00d });
  const c = new ReplicationClient({ entities: [Ball] });
  assert.equal(s.hash, 0x2004139e);
  s.addClient(1);
  const id = s.spawn(Ball, { x: 1.5, hp: 100 });
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  s.tick();
  const p1 = s.packetFor(1);
  c.receive(p1);
  s.receive(1, c.ack());
  s.set(id, { x: 1.75, hp: 99 });
  s.tick();
  const p2 = s.packetFor(1);
  c.receive(p2);
  assert.deepEqual(lines, [hex(p1), hex(p2), hex(c.ack())]);
});

test('an interest hook that returns a truthy value that is not true (JavaScript callers) shows the entity, steadily', () => {
  const server = new ReplicationServer({ entities });
  const client = new ReplicationClient({ entities });
  // biome-ignore lint/suspicious/noExplicitAny: a JavaScript caller's hook
  server.addClient('c', { interest: ((id: number) => (id % 2 === 1 ? 1 : 0)) as any });
  const ids = [1, 2, 3].map((x) => server.spawn(Dot, { x, y: 0 }));
  const events: string[] = [];
  for (let k = 0; k < 6; k++) {
    for (const id of ids) server.set(id, { x: k + id });
    server.tick();
    const r = client.receive(server.packetFor('c'));
    server.receive('c', client.ack());
    events.push(`+${r.spawned}-${r.despawned}`);
  }
  assert.deepEqual(events, ['+1,3-', '+-', '+-', '+-', '+-', '+-']);
  assert.deepEqual([...client.entities.keys()].sort(), [1, 3]);
});

test('sessions: a packet of session 0 is a DecodeError at byte 5 for a client that follows none yet (fast path too); a bundle that fails leaves the session it followed', () => {
  const Ball = defineEntity('Ball', { x: t.f32(), hp: t.u8() });
  const a = new ReplicationServer({ entities: [Ball], session: 0xa });
  a.addClient('c');
  const id = a.spawn(Ball, { x: 1, hp: 1 });
  a.tick();
  const p1 = a.packetFor('c');
  const zero = p1.slice();
  zero.set([0, 0, 0, 0], 5);
  const fresh = new ReplicationClient({ entities: [Ball] });
  assert.throws(
    () => fresh.receive(zero),
    (e: unknown) => e instanceof DecodeError && e.offset === 5 && e.path === 'session',
  );
  assert.equal(fresh.session, 0);
  assert.equal(fresh.tick, 0);
  assert.equal(fresh.entities.size, 0);
  // the real full state still applies
  assert.equal(fresh.receive(p1).ignored, undefined);
  assert.equal(fresh.session, 0xa);
  // a bundle whose first part is good and whose second is bad, to a client that follows none yet: nothing changes,
  // the session included (and its ack says so)
  a.receive('c', fresh.ack());
  a.set(id, { hp: 2 });
  a.tick();
  const p2 = a.packetFor('c').slice();
  p2[9] = 3; // its tick: not the one after the first part's
  const frameOf = (ps: Uint8Array[]) => Uint8Array.from(ps.flatMap((p) => [0xb3, p.length, ...p]));
  const other = new ReplicationClient({ entities: [Ball] });
  assert.throws(() => other.receive(frameOf([p1, p2])), DecodeError);
  assert.equal(other.session, 0);
  assert.equal(other.tick, 0);
  assert.deepEqual([...other.ack()].slice(5, 9), [0, 0, 0, 0]);
  // so the server's full state of tick 1 is not old to it
  assert.equal(other.receive(p1).ignored, undefined);
  assert.deepEqual(other.entities.get(id)!.values, { x: 1, hp: 1 });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/core/errors.js';
import { BUNDLE_MAGIC, ReplicationClient, ReplicationServer, bundleParts, defineEntity, readPacketHeader, t } from '../../src/replication/index.js';
import { testHooks } from '../../src/replication/server.js';
import { rng } from '../helpers/rng.js';

const U = defineEntity('U', { x: t.f32(), n: t.u32(), s: t.string(8) });

/** Raw values of every entity a client sees, by id (the entity objects too, to tell a renewed id). */
function snapshot(c: ReplicationClient): Map<number, { e: unknown; raw: unknown[] }> {
  return new Map([...c.entities].map(([id, e]) => [id, { e, raw: [...e.raw] }]));
}

/** A receive result must be the net change between two snapshots: ids spawned, despawned (a new entity object is both), and the fields of the others that differ. */
function assertNetChange(
  res: { spawned: readonly number[]; despawned: readonly number[]; changed: ReadonlyMap<number, readonly string[]> },
  before: Map<number, { e: unknown; raw: unknown[] }>,
  after: Map<number, { e: unknown; raw: unknown[] }>,
  msg: string,
): void {
  const spawned: number[] = [];
  const despawned: number[] = [];
  const changed = new Map<number, string[]>();
  for (const id of [...new Set([...before.keys(), ...after.keys()])].sort((a, b) => a - b)) {
    const a = before.get(id);
    const b = after.get(id);
    if (a?.e !== b?.e) {
      if (a) despawned.push(id);
      if (b) spawned.push(id);
    } else if (a && b) {
      const names = U.list.filter((_f, i) => a.raw[i] !== b.raw[i]).map((f) => f.name);
      if (names.length > 0) changed.set(id, names);
    }
  }
  const sorted = (a: readonly number[]): number[] => [...a].sort((x, y) => x - y);
  assert.deepEqual([sorted(res.spawned), sorted(res.despawned), new Map(res.changed)], [spawned, despawned, changed], msg);
}

/** A world of 40 ids: each tick some move (x and n only grow), some despawn, some ids come back as new entities. */
function world(seed: number, bundles = true, mtu = 1 << 16, idBase = 0, spread = 1) {
  const server = new ReplicationServer({ session: 1, entities: [U], mtu, bundles });
  const r = rng(seed);
  const ids = Array.from({ length: 40 }, (_, i) => idBase + i * spread + 1);
  let k = 0;
  for (const id of ids) server.spawn(U, { x: id - idBase, n: id - idBase, s: 'a' }, { id });
  const step = (share = 0.15): void => {
    k++;
    for (const id of ids) {
      const live = server.get(id) !== undefined;
      const q = r();
      if (live && q < 0.03) {
        server.despawn(id);
        if (r() < 0.5) server.spawn(U, { x: k, n: k, s: 'n' }, { id });
      } else if (!live && q < 0.2) server.spawn(U, { x: k, n: k, s: 'r' }, { id });
      else if (live && q < 0.03 + share) {
        const v = server.get(id)!.values as { x: number; n: number };
        server.set(id, { x: v.x + 1 + r(), n: v.n + 1 });
      }
    }
    server.tick();
  };
  const view = (): Map<number, Record<string, unknown>> => new Map(ids.flatMap((id) => (server.get(id) ? [[id, server.get(id)!.values] as const] : [])));
  return { server, step, view };
}

/** The client's mirror is the world `w`: the same ids, and each entity's values. */
function assertMirror(c: ReplicationClient<(typeof U)[]>, w: Map<number, Record<string, unknown>>, what: string): void {
  const sorted = (ids: Iterable<number>): number[] => [...ids].sort((a, b) => a - b);
  assert.deepEqual(sorted(c.entities.keys()), sorted(w.keys()), `${what}: ids`);
  for (const [id, v] of w) assert.deepEqual(c.entities.get(id)?.values, v, `${what}: id ${id}`);
}

// (the server counts a bundle's distinct ids with bit sets over their range when they are dense, else by a mark per id
// below 2^20 and a set above)
const ID_SETS = [
  [0, 1, 'ids 1 to 40'],
  [(1 << 20) - 21, 1, 'ids either side of 2^20'],
  [0xffffffff - 41, 1, 'ids up to 2^32 - 2'],
  [0, 1000, 'ids 1000 apart'],
  [(1 << 20) - 20_000, 1000, 'ids 1000 apart either side of 2^20'],
  [0xffffffff - 40_000, 1000, 'ids 1000 apart up to 2^32 - 1000'],
] as const;

for (const [idBase, spread, ids, slab] of [...ID_SETS.map((x) => [...x, 65536] as const), [0, 1, 'slabs of 700 bytes', 700] as const])
  test(`a client that missed ticks gets a bundle of the packets a client that kept up got, byte for byte; applied, it is the world, and its result is the net change; ${ids}`, (ctx) => {
    testHooks.slab = slab;
    ctx.after(() => {
      testHooks.slab = 65536;
    });
    const { server, step, view } = world(7, true, 1 << 16, idBase, spread);
    server.addClient('up');
    server.addClient('lag');
    // bundles that are views of the memory the up-to-date client's packets are in, and copies (parts in two slabs)
    let views = 0;
    let copies = 0;
    const up = new ReplicationClient({ entities: [U] });
    const lag = new ReplicationClient({ entities: [U] });
    const r = rng(99);
    const sentUp = new Map<number, Uint8Array>();
    let bundles = 0;
    let parts = 0;
    let skipped = 0;
    for (let k = 1; k <= 400; k++) {
      step();
      const pu = server.packetFor('up');
      sentUp.set(k, pu);
      up.receive(pu);
      server.receive('up', up.ack());
      const pl = server.packetFor('lag');
      // the lagging client loses 40% of its packets and 40% of its acks
      if (r() < 0.4) continue;
      if (pl[0] === BUNDLE_MAGIC) {
        bundles++;
        if (pl.buffer === pu.buffer) views++;
        else copies++;
        const ps = bundleParts(pl);
        parts += ps.length;
        // each part is the packet the up-to-date client got at that tick (against the tick before)
        for (const [, p] of ps) {
          const h = readPacketHeader(p);
          assert.deepEqual(p, sentUp.get(h.tick), `tick ${k}: part of tick ${h.tick}`);
          assert.equal(h.baseTick, h.tick - 1);
          if (h.tick <= lag.tick) skipped++;
        }
      }
      const before = snapshot(lag);
      const res = lag.receive(pl);
      if (res.ignored) continue;
      const after = snapshot(lag);
      assert.equal(res.tick, k);
      // the result is the difference between the mirror before and after
      assertNetChange(res, before, after, `tick ${k}: result`);
      // the mirror is the world
      assertMirror(lag, view(), `tick ${k}`);
      if (r() >= 0.4) server.receive('lag', lag.ack());
    }
    assert.ok(bundles > 50 && parts > 2.2 * bundles && skipped > 20, `${bundles} bundles, ${parts} parts, ${skipped} parts the client had`);
    // in 64 KiB slabs a bundle is nearly always a view; in small ones, the parts often lie in two
    if (slab === 65536) assert.ok(views >= bundles - 2, `${views} views, ${copies} copies`);
    else assert.ok(views > 10 && copies > 2, `${views} views, ${copies} copies`);
  });

test('a bundle with a bad part is a DecodeError in that part that undoes the parts before it: the mirror, its values and its history are as they were', () => {
  const { server, step } = world(3);
  server.addClient('c');
  const first: Uint8Array[] = [];
  // a client at tick 5 (values objects made: they are updated in place too)
  const fresh = (): ReplicationClient => {
    const c = new ReplicationClient({ entities: [U] });
    for (const p of first) c.receive(p);
    for (const e of c.entities.values()) void e.values;
    return c;
  };
  for (let k = 1; k <= 5; k++) {
    step();
    first.push(server.packetFor('c'));
    server.receive('c', fresh().ack());
  }
  let c = fresh();
  // three ticks missed: the next packet is a bundle of four parts against tick 5
  for (let k = 0; k < 3; k++) {
    step();
    server.packetFor('c');
  }
  step();
  const b = server.packetFor('c');
  const ps = bundleParts(b);
  assert.equal(ps.length, 4);
  let checked = 0;
  let read = 0;
  for (let i = 1; i < ps.length; i++) {
    const [at, p] = ps[i]!;
    for (let cut = 10; cut < p.length; cut++) {
      const bad = b.slice();
      // the part's last byte made invalid padding, or a byte in its records changed
      bad[at + cut] = bad[at + cut]! ^ (cut === p.length - 1 ? 0x80 : 0x5a);
      const raw = new Map([...c.entities].map(([id, e]) => [id, { e, raw: [...e.raw], values: { ...e.values } }]));
      const tick = c.tick;
      let err: unknown;
      try {
        c.receive(bad);
      } catch (e) {
        err = e;
      }
      if (err === undefined) {
        // (a change that still reads: another valid bundle, applied; start again from a client at tick 5)
        read++;
        c = fresh();
        continue;
      }
      assert.ok(err instanceof DecodeError, String(err));
      assert.ok(err.path.startsWith(`parts[${i}]`), err.path);
      assert.ok(err.offset >= at && err.offset <= at + p.length, `offset ${err.offset} in part ${i} at ${at}..${at + p.length}`);
      assert.equal(c.tick, tick);
      assert.equal(c.entities.size, raw.size);
      for (const [id, v] of raw) {
        const e = c.entities.get(id)!;
        assert.equal(e, v.e);
        assert.deepEqual([...e.raw], v.raw);
        assert.deepEqual({ ...e.values }, v.values);
      }
      checked++;
    }
  }
  assert.ok(checked > 20, `${checked} bad bundles (${read} read as other bundles)`);
  // each frame after the first starts with the bundle magic: another byte there is a framing error, which changes nothing
  const before = JSON.stringify([c.tick, [...c.entities].map(([id, e]) => [id, [...e.raw]])]);
  for (let i = 1; i < ps.length; i++) {
    const head = ps[i]![0] - 1 - (ps[i]![1].length < 128 ? 1 : 2);
    assert.equal(b[head], BUNDLE_MAGIC);
    const bad = b.slice();
    bad[head] = 0xb1;
    assert.throws(
      () => c.receive(bad),
      (e: unknown) => e instanceof DecodeError && e.path === `parts[${i}].bundleMagic` && e.offset === head,
    );
    assert.equal(JSON.stringify([c.tick, [...c.entities].map(([id, e]) => [id, [...e.raw]])]), before);
  }
  // the history is whole: the good bundle applies, and is the world
  const res = c.receive(b);
  assert.equal(res.tick, server.currentTick);
  assert.equal(res.baseTick, 5);
  for (const [id, e] of c.entities) assert.deepEqual(e.values, server.get(id)!.values);
});

test('a small MTU: between packets that leave entities out, bundles, and the mirror exact whenever nothing is left out; no bundle when the entities change every tick, nor with bundles: false', () => {
  // small MTU: packets leave entities out; a client that applies them and whose acks are lost must get one delta
  {
    const { server, step, view } = world(5, true, 200);
    server.addClient('c');
    const c = new ReplicationClient({ entities: [U] });
    let over = 0;
    let exact = 0;
    let bundles = 0;
    for (let k = 1; k <= 300; k++) {
      step(0.4);
      const p = server.packetFor('c');
      if (p[0] === BUNDLE_MAGIC) bundles++;
      const res = c.receive(p);
      if (res.deferred > 0) over++;
      else if (!res.ignored) {
        exact++;
        assertMirror(c, view(), `tick ${k}`);
      }
      if (k % 4 === 0) server.receive('c', c.ack());
    }
    assert.ok(over > 30 && exact > 30, `${over} packets left entities out, ${exact} exact`);
    assert.ok(bundles > 0, 'bundles between the packets that left entities out');
  }
  // every entity changes every tick: a bundle would send each once per tick; one delta sends it once (ids counted in
  // each of the ways, see the first test)
  for (const [idBase, spread] of ID_SETS) {
    const { server, step } = world(6, true, 1 << 16, idBase, spread);
    server.addClient('c');
    const c = new ReplicationClient({ entities: [U] });
    for (let k = 1; k <= 60; k++) {
      step(1);
      const p = server.packetFor('c');
      assert.notEqual(p[0], BUNDLE_MAGIC, `tick ${k}`);
      c.receive(p);
      if (k % 3 === 0) server.receive('c', c.ack());
    }
  }
  {
    const { server, step } = world(8, false);
    server.addClient('c');
    const c = new ReplicationClient({ entities: [U] });
    let lagging = 0;
    for (let k = 1; k <= 60; k++) {
      step(0.1);
      const p = server.packetFor('c');
      assert.notEqual(p[0], BUNDLE_MAGIC, `tick ${k}`);
      const res = c.receive(p);
      if (res.baseTick !== null && res.baseTick < k - 1) lagging++;
      if (k % 3 === 0) server.receive('c', c.ack());
    }
    assert.ok(lagging > 30, `${lagging} deltas against older baselines`);
  }
});

test('ids despawned and spawned again, a small MTU, one client that keeps up and one that acks every 3 to 8 ticks: every packet that leaves nothing out makes the mirror the world (with bundles and without)', () => {
  let exact = 0;
  let over = 0;
  let bundled = 0;
  for (const bundles of [true, false])
    for (const mtu of [160, 300])
      for (const every of [3, 5, 8]) {
        const { server, step, view } = world(5, bundles, mtu);
        server.addClient('up');
        server.addClient('lag');
        const up = new ReplicationClient({ entities: [U] });
        const c = new ReplicationClient({ entities: [U] });
        for (let k = 1; k <= 300; k++) {
          step(0.1);
          up.receive(server.packetFor('up'));
          server.receive('up', up.ack());
          const p = server.packetFor('lag');
          if (p[0] === BUNDLE_MAGIC) bundled++;
          const res = c.receive(p);
          if (res.deferred > 0) over++;
          else if (!res.ignored) {
            exact++;
            assertMirror(c, view(), `bundles ${bundles} mtu ${mtu} acks every ${every}, tick ${k}`);
          }
          if (k % every === 0) server.receive('lag', c.ack());
        }
      }
  assert.ok(exact > 3000 && over > 100 && bundled > 500, `${exact} exact, ${over} left entities out, ${bundled} bundles`);
});

/** A bundle of `parts` (state packets), framed as the server frames them: per part the bundle magic, a varint length, the packet. */
function bundleOf(parts: Uint8Array[]): Uint8Array {
  const out: number[] = [];
  for (const p of parts) {
    out.push(BUNDLE_MAGIC);
    let n = p.length;
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n, ...p);
  }
  return Uint8Array.from(out);
}

test('bundles of many parts (the packets of 12 to 20 ticks, the first of them a full state): applied, the mirror is the world and the result is the net change', () => {
  const { server, step, view } = world(11, true, 1 << 16);
  server.addClient('up');
  const up = new ReplicationClient({ entities: [U] });
  const lag = new ReplicationClient({ entities: [U] });
  const r = rng(5);
  const sent: Uint8Array[] = [];
  let next = 12;
  let bundles = 0;
  const ids = [...view().keys()];
  for (let k = 1; k <= 600; k++) {
    // besides the moves (x and n), one entity's s and another's n alone: an entity's parts change different fields
    const a = ids[Math.floor(r() * ids.length)]!;
    const b = ids[Math.floor(r() * ids.length)]!;
    if (server.get(a) !== undefined) server.set(a, { s: `s${k}` });
    if (server.get(b) !== undefined) server.set(b, { n: 1000 + k });
    step(0.1);
    const pu = server.packetFor('up');
    up.receive(pu);
    server.receive('up', up.ack());
    sent.push(pu);
    if (k < next) continue;
    next = k + 12 + Math.floor(r() * 9);
    // the packets since the lagging client's tick, each against the tick before: what a bundle carries
    const parts = sent.slice(lag.tick);
    assert.ok(parts.length > 8);
    assert.deepEqual(
      bundleParts(bundleOf(parts)).map(([, p]) => p),
      parts,
    );
    bundles++;
    const before = snapshot(lag);
    const res = lag.receive(bundleOf(parts));
    const after = snapshot(lag);
    assert.equal(res.tick, k);
    assertNetChange(res, before, after, `tick ${k}: result`);
    assertMirror(lag, view(), `tick ${k}`);
  }
  assert.ok(bundles >= 30, `${bundles} bundles`);
});

test('a bundle whose parts are not consecutive, each against the one before, is a DecodeError (mirror unchanged); its first part could otherwise move the history floor past the newest tick applied, and every later delta would be ignored', () => {
  // the packets of a client that acked every tick (each against the tick before), and of one that acked even ticks only
  // (no bundles: its packet of tick 6 is one delta against tick 4)
  const server = new ReplicationServer({ session: 1, entities: [U], bundles: false });
  server.addClient('b');
  server.addClient('e');
  const b = new ReplicationClient({ entities: [U] });
  const e = new ReplicationClient({ entities: [U] });
  const ids = [server.spawn(U, { x: 1 }), server.spawn(U, { x: 2 })];
  const usual: Uint8Array[] = [];
  const even: Uint8Array[] = [];
  for (let k = 1; k <= 12; k++) {
    server.set(ids[k % 2]!, { x: k, n: k });
    server.tick();
    const p = server.packetFor('b');
    usual.push(p);
    b.receive(p);
    server.receive('b', b.ack());
    const q = server.packetFor('e');
    even.push(q);
    e.receive(q);
    if (k % 2 === 0) server.receive('e', e.ack());
  }
  assert.equal(readPacketHeader(even[5]!).baseTick, 4, 'tick 6 against 4');
  const at4 = (): ReplicationClient => {
    const m = new ReplicationClient({ entities: [U] });
    for (let k = 0; k < 4; k++) m.receive(usual[k]!);
    assert.equal(m.tick, 4);
    return m;
  };
  const m = at4();
  const before = snapshot(m);
  // first a later tick's part (tick 11 against 10: not held, so skipped), then the parts of ticks 5..8
  assert.throws(
    () => m.receive(bundleOf([usual[10]!, usual[4]!, usual[5]!, usual[6]!, usual[7]!])),
    (err: unknown) => err instanceof DecodeError && /parts\[1\]\.tick/.test(err.message),
  );
  assert.deepEqual(snapshot(m), before, 'mirror unchanged');
  assert.equal(m.tick, 4);
  // the consecutive bundle of the same parts applies, and so does the next delta (tick 9 against 8) after it
  assert.equal(m.receive(bundleOf([usual[4]!, usual[5]!, usual[6]!, usual[7]!])).ignored, undefined);
  assert.equal(m.tick, 8);
  assert.equal(m.receive(usual[8]!).ignored, undefined, 'the next delta applies');
  assert.equal(m.tick, 9);
  // a part that skips a tick, and a part of the next tick against another tick than the part before it
  const m2 = at4();
  assert.throws(
    () => m2.receive(bundleOf([usual[4]!, usual[6]!])),
    (err: unknown) => err instanceof DecodeError && /parts\[1\]\.tick/.test(err.message),
  );
  assert.throws(
    () => m2.receive(bundleOf([usual[4]!, even[5]!])),
    (err: unknown) => err instanceof DecodeError && /parts\[1\]\.baseAgo/.test(err.message),
  );
  assert.equal(m2.tick, 4);
});

test('a baseAgo past the tick is a DecodeError at the byte where baseAgo starts, also after a tick of two bytes (it said byte 6)', () => {
  const c = new ReplicationClient({ entities: [U] });
  const h = new ReplicationServer({ session: 1, entities: [U] }).hash;
  // magic, schema hash, session 1
  const head = [0xb1, h & 255, (h >>> 8) & 255, (h >>> 16) & 255, h >>> 24, 1, 0, 0, 0];
  // tick 128 (80 01), baseAgo 129 (81 01); tick 5, baseAgo 6
  for (const [tickBytes, agoBytes, at] of [
    [[0x80, 0x01], [0x81, 0x01], 11],
    [[5], [6], 10],
  ] as const) {
    const p = Uint8Array.from([...head, ...tickBytes, ...agoBytes, 0, 0]);
    for (const f of [() => c.receive(p), () => readPacketHeader(p)])
      assert.throws(f, (e: unknown) => e instanceof DecodeError && e.offset === at && /baseAgo/.test(e.message));
  }
  assert.equal(c.tick, 0);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/core/errors.js';
import { BUNDLE_MAGIC, LossyLink, ReplicationClient, ReplicationServer, defineEntity, t } from '../../src/replication/index.js';
import { rng } from '../helpers/rng.js';

/**
 * A client whose mirror holds 4,096 entities or more reads a packet's usual records (updates of fixed-width fields of
 * entities it holds) in runs of up to 256: the whole run first, then its entities' lines loaded together, then
 * applied. The worlds here hold 4,500. These tests drive packets with
 * long runs (hundreds of such updates), broken by every other kind of record (a string field's update, creations,
 * despawns, an id spawned again with another type), against a model of the world kept here in plain values; and
 * packets cut or corrupted inside a later run, whose error must undo the runs applied before it.
 */
const Dot = defineEntity('Dot', {
  on: t.bool(),
  a: t.u8(),
  b: t.i8(),
  c: t.u16(),
  d: t.i16(),
  e: t.u32(),
  f: t.i32(),
  x: t.f32(),
  q: t.quantized(0, 100, 0.25),
  r: t.ref(),
});
const Tag = defineEntity('Tag', { n: t.u16(), label: t.string(8) });
const DEFS = [Dot, Tag] as const;
type Vals = Record<string, unknown>;

const DOT_FIELDS = ['on', 'a', 'b', 'c', 'd', 'e', 'f', 'x', 'q', 'r'] as const;
// (q, a quantized float, is read as generic fields are: its update is no run's)
const TAG_FIELDS = ['n', 'label'] as const;

/** A random value of field `name` (extremes often: the differences wrap around). */
function value(r: () => number, name: string): unknown {
  const pick = (lo: number, hi: number): number => {
    const k = r();
    if (k < 0.15) return lo;
    if (k < 0.3) return hi;
    return lo + Math.floor(r() * (hi - lo + 1));
  };
  switch (name) {
    case 'on':
      return r() < 0.5;
    case 'a':
      return pick(0, 255);
    case 'b':
      return pick(-128, 127);
    case 'c':
    case 'n':
      return pick(0, 65535);
    case 'd':
      return pick(-32768, 32767);
    case 'e':
      return pick(0, 0xffffffff);
    case 'f':
      return pick(-0x80000000, 0x7fffffff);
    case 'x': {
      const k = r();
      return k < 0.1 ? -0 : k < 0.2 ? Math.fround(3.4e38) : Math.fround((r() - 0.5) * 2 ** Math.floor(r() * 40 - 20));
    }
    case 'q':
      return pick(0, 400) * 0.25;
    case 'r':
      return r() < 0.2 ? null : pick(1, 5000);
    case 'label':
      return `l${pick(0, 99999)}`;
  }
  throw new Error(name);
}

function fresh(r: () => number, type: 'Dot' | 'Tag'): Vals {
  const v: Vals = {};
  for (const f of type === 'Dot' ? DOT_FIELDS : TAG_FIELDS) v[f] = value(r, f);
  return v;
}

/** The mirror equals the model: same ids, types and values (f32 and -0 compared with Object.is). */
function assertMirror(client: ReplicationClient<typeof DEFS>, model: Map<number, { type: 'Dot' | 'Tag'; values: Vals }>, at: string): void {
  assert.equal(client.entities.size, model.size, `${at}: entity count`);
  for (const [id, m] of model) {
    const e = client.entities.get(id);
    assert.ok(e !== undefined, `${at}: entity ${id} missing`);
    assert.equal(e.type, m.type, `${at}: entity ${id}'s type`);
    const v = e.values as Vals;
    for (const f of Object.keys(m.values)) assert.ok(Object.is(v[f], m.values[f]), `${at}: entity ${id}.${f} is ${String(v[f])}, want ${String(m.values[f])}`);
  }
}

/** A server with `n` Dots and some Tags (ids interleaved), its model, and a client that holds the first state. */
function world(seed: number, n: number) {
  const r = rng(seed);
  const server = new ReplicationServer({ session: 1, entities: DEFS, delivery: 'reliable', mtu: 1 << 20 });
  const model = new Map<number, { type: 'Dot' | 'Tag'; values: Vals }>();
  const spawn = (): void => {
    const type = r() < 0.9 ? 'Dot' : 'Tag';
    const values = fresh(r, type);
    const id = type === 'Dot' ? server.spawn(Dot, values as never) : server.spawn(Tag, values as never);
    model.set(id, { type, values });
  };
  for (let i = 0; i < n; i++) spawn();
  server.addClient('c');
  server.tick();
  const first = server.packetFor('c');
  const start = (): ReplicationClient<typeof DEFS> => {
    const client = new ReplicationClient({ entities: DEFS });
    client.receive(first);
    // values objects exist (updated in place with the raw values)
    for (const e of client.entities.values()) void e.values;
    return client;
  };
  return { r, server, model, client: start(), start, spawn };
}

test('long runs of updates of fixed-width fields, broken by every other kind of record: the mirror follows the world, and `changed` names what changed', () => {
  const { r, server, model, client, spawn } = world(20261128, 4500);
  let longPackets = 0;
  let mixedPackets = 0;
  let updates = 0;
  for (let tick = 0; tick < 24; tick++) {
    // this tick's share of entities changed: a few, most, or all
    const share = [0.05, 0.6, 1][tick % 3]!;
    const changedNow = new Map<number, Set<string>>();
    for (const [id, m] of model) {
      if (r() >= share) continue;
      const fields = m.type === 'Dot' ? DOT_FIELDS : TAG_FIELDS;
      const patch: Vals = {};
      // a label (a string) or q (a quantized float) ends a run: rarely, so that some runs are long
      for (const f of fields) if (r() < (f === 'label' || f === 'q' ? (share === 1 ? 0.002 : 0.05) : 0.5)) patch[f] = value(r, f);
      if (Object.keys(patch).length === 0) continue;
      server.set(id, patch);
      const names = new Set<string>();
      for (const [f, v] of Object.entries(patch)) {
        if (!Object.is(m.values[f], v)) names.add(f);
        m.values[f] = v;
      }
      if (names.size > 0) changedNow.set(id, names);
    }
    // some despawns and spawns (ids come back, sometimes with the other type)
    const despawned = new Set<number>();
    for (const id of [...model.keys()]) {
      if (r() < 0.01) {
        server.despawn(id);
        model.delete(id);
        changedNow.delete(id);
        despawned.add(id);
      }
    }
    const spawnsBefore = new Set(model.keys());
    for (let i = 0; i < despawned.size + 2; i++) spawn();
    server.tick();
    const res = client.receive(server.packetFor('c'));
    assertMirror(client, model, `tick ${tick}`);
    // `changed`: the fields of each entity that stayed, exactly those whose value changed (in field order)
    const spawned = new Set(res.spawned);
    let n = 0;
    for (const [id, names] of changedNow) {
      if (!spawnsBefore.has(id) || spawned.has(id)) continue;
      const fields = model.get(id)!.type === 'Dot' ? DOT_FIELDS : TAG_FIELDS;
      assert.deepEqual(
        res.changed.get(id),
        fields.filter((f) => names.has(f)),
        `tick ${tick}: changed of ${id}`,
      );
      n++;
    }
    assert.equal(res.changed.size, n, `tick ${tick}: changed has only what changed`);
    updates += n;
    if (n > 600) longPackets++;
    if (n > 300 && res.spawned.length > 0 && res.despawned.length > 0) mixedPackets++;
  }
  // runs longer than one read-ahead (256) happened, and runs broken by creations and despawns
  assert.ok(longPackets >= 14, `${longPackets} packets with more than 600 updates`);
  assert.ok(mixedPackets >= 14, `${mixedPackets} packets with many updates, spawns and despawns`);
  assert.ok(updates > 40_000, `${updates} updates`);
});

test('a packet cut or corrupted in a later run gives a DecodeError and leaves the mirror as it was, the runs before undone', () => {
  const w = world(7, 4500);
  const { r, server, model } = w;
  let client = w.client;
  // every entity changes every field read in runs (all but q and label): 4,500 updates in runs of 256
  for (const [id, m] of model) {
    const patch: Vals = {};
    for (const f of m.type === 'Dot' ? DOT_FIELDS.filter((f) => f !== 'q') : ['n']) patch[f] = value(r, f);
    server.set(id, patch);
    Object.assign(m.values, patch);
  }
  server.tick();
  const packet = server.packetFor('c');
  // the mirror as text: each entity's id, type, raw values and values (-0 kept apart from 0)
  const snapshot = (): string => {
    const out: string[] = [];
    for (const [id, e] of client.entities) {
      const v = Object.values(e.values as Vals).map((x) => (Object.is(x, -0) ? '-0' : String(x)));
      out.push(`${id} ${e.type} ${e.raw.join(',')} ${v.join(',')}`);
    }
    return out.join('\n');
  };
  const before = snapshot();
  let late = 0;
  let errors = 0;
  const tryBad = (bytes: Uint8Array, cutAt: number | null): void => {
    let err: unknown;
    try {
      client.receive(bytes);
    } catch (e) {
      err = e;
    }
    if (err === undefined) {
      // (a corruption that still reads: the mirror starts again from the first state)
      client = w.start();
      return;
    }
    assert.ok(err instanceof DecodeError, String(err));
    errors++;
    const m = /^records\[(\d+)\]/.exec(err.path);
    // a cut in the packet's last quarter fails in a record past the first runs (their updates applied, then undone)
    if (cutAt !== null && cutAt > 0.75 * packet.length) {
      assert.ok(m !== null && Number(m[1]) > 512, `cut at ${cutAt}: ${err.path}`);
      late++;
    }
    assert.ok(snapshot() === before, `mirror changed by a bad packet (${err.path})`);
  };
  for (let cut = 8; cut < packet.length; cut += 499) tryBad(packet.subarray(0, cut), cut);
  for (let i = 0; i < 80; i++) {
    const b = packet.slice();
    const at = 8 + Math.floor(r() * (b.length - 8));
    b[at]! ^= 1 << Math.floor(r() * 8);
    tryBad(b, null);
  }
  assert.ok(late >= 10, `${late} cuts in the last quarter`);
  assert.ok(errors >= 80, `${errors} errors`);
  // the packet itself still applies, and gives the world
  client.receive(packet);
  assertMirror(client, model, 'after the bad packets');
});

test('runs through a lossy link (25 % loss both ways, duplicates, reordering), acked, with bundles: after every packet the client applies, its mirror equals the world at that packet’s tick', () => {
  const Unit = defineEntity('Unit', { x: t.f32(), y: t.f32(), hp: t.u8(), on: t.bool(), name: t.string(12) });
  type U = { x: number; y: number; hp: number; on: boolean; name: string };
  const r = rng(20261130);
  const server = new ReplicationServer({ session: 1, entities: [Unit], mtu: 1 << 20 });
  const world = new Map<number, U>();
  for (let i = 0; i < 5000; i++) {
    const v = { x: Math.fround(r() * 1000), y: Math.fround(r() * 1000), hp: (r() * 256) | 0, on: r() < 0.5, name: `u${i}` };
    world.set(server.spawn(Unit, v), v);
  }
  server.addClient('c');
  const down = new LossyLink({ loss: 0.25, duplicate: 0.1, reorder: 0.2, seed: 3 });
  const up = new LossyLink({ loss: 0.25, seed: 4 });
  const client = new ReplicationClient({ entities: [Unit] as const });
  // how many records the runs applied (the path under test), counted on the client's own method
  let inRuns = 0;
  const proto = ReplicationClient.prototype as unknown as { updateRun: (...a: unknown[]) => number };
  const updateRun = proto.updateRun;
  proto.updateRun = function (this: unknown, ...a: unknown[]): number {
    const n = updateRun.apply(this, a);
    inRuns += n;
    return n;
  };
  const history = new Map<number, Map<number, U>>();
  let applied = 0;
  let bundles = 0;
  try {
    for (let k = 0; k < 200; k++) {
      for (const [id, v] of world) {
        if (r() >= 0.3) continue;
        const next = { ...v, x: Math.fround(v.x + r() - 0.5), y: Math.fround(v.y + r() - 0.5) };
        if (r() < 0.1) next.hp = (r() * 256) | 0;
        if (r() < 0.05) next.on = !next.on;
        if (r() < 0.01) next.name = `n${k}`;
        server.set(id, next);
        world.set(id, next);
      }
      if (k % 7 === 3) {
        const ids = [...world.keys()];
        const id = ids[Math.floor(r() * ids.length)]!;
        server.despawn(id);
        world.delete(id);
        const v = { x: 1, y: 2, hp: 3, on: true, name: 'new' };
        world.set(server.spawn(Unit, v), v);
      }
      history.set(server.tick(), new Map([...world].map(([id, v]) => [id, { ...v }])));
      down.send(server.packetFor('c'));
      for (const p of down.deliver()) {
        if (p[0] === BUNDLE_MAGIC) bundles++;
        const res = client.receive(p);
        if (res.ignored) continue;
        applied++;
        const want = history.get(res.tick)!;
        assert.equal(client.entities.size, want.size, `tick ${res.tick}: entity count`);
        for (const [id, v] of want) {
          const e = client.entities.get(id);
          assert.ok(e !== undefined, `tick ${res.tick}: entity ${id} missing`);
          const got = e.values as Record<string, unknown>;
          for (const f of ['x', 'y', 'hp', 'on', 'name'] as const)
            assert.ok(Object.is(got[f], v[f]), `tick ${res.tick}: ${id}.${f} is ${String(got[f])}, want ${String(v[f])}`);
        }
      }
      up.send(client.ack());
      for (const a of up.deliver()) server.receive('c', a);
    }
  } finally {
    proto.updateRun = updateRun;
  }
  assert.ok(applied > 100, `${applied} packets applied`);
  assert.ok(bundles > 20, `${bundles} bundles`);
  assert.ok(inRuns > 100_000, `${inRuns} records applied in runs`);
});

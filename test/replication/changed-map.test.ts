import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ChangedMap } from '../../src/replication/maps.js';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';

/** Everything a reader of a ReadonlyMap can see, as plain data. */
function observe(m: ReadonlyMap<number, readonly string[]>, probes: readonly unknown[]): unknown {
  const each: unknown[] = [];
  m.forEach(function (this: unknown, v, k, map) {
    each.push([k, v, map === m, this]);
  }, 'this');
  return {
    size: m.size,
    keys: [...m.keys()],
    values: [...m.values()],
    entries: [...m.entries()],
    iter: [...m],
    each,
    got: probes.map((p) => [m.get(p as number), m.has(p as number)]),
  };
}

test('ChangedMap reads exactly as a Map with the same sets (order, replaced values, lookups of present and absent keys)', () => {
  const names = [['x'], ['y'], ['x', 'y'], ['hp'], []] as const;
  fc.assert(
    fc.property(
      // appends first (ascending ids, as a packet's updates; into arrays made `capacity` long, or more), then sets
      fc.integer({ min: 0, max: 12 }),
      fc.array(fc.tuple(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: names.length - 1 })), { maxLength: 16 }),
      // runs of ascending ids (the usual packet), with ids out of order and repeated ones mixed in
      fc.array(fc.tuple(fc.oneof(fc.integer({ min: 0, max: 40 }), fc.constant(-1)), fc.integer({ min: 0, max: names.length - 1 })), { maxLength: 60 }),
      fc.boolean(),
      (capacity, appends, ops, ascending) => {
        const ref = new Map<number, readonly string[]>();
        const m = new ChangedMap(capacity);
        let id = 0;
        for (const [gap, v] of appends) {
          id += gap;
          ref.set(id, names[v]!);
          m.append(id, names[v]!);
        }
        m.trim();
        for (const [k, v] of ops) {
          // ascending: gaps of k (the usual case); else k itself (any order, repeats)
          const key = ascending ? (id += Math.max(1, k)) : k;
          ref.set(key, names[v]!);
          m.set(key, names[v]!);
        }
        const probes: unknown[] = [...Array.from({ length: 45 }, (_, i) => i - 2), 2.5, NaN, '3', undefined, 1e9];
        assert.deepEqual(observe(m, probes), observe(ref, probes));
      },
    ),
    { numRuns: 2000 },
  );
});

test("a client's changed lists exactly the entities held before and after a packet whose raw values differ, with the names of those fields in field order", () => {
  const U = defineEntity('U', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(8), big: t.array(t.u8(), 3) });
  let seed = 7;
  const r = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const server = new ReplicationServer({ session: 1, entities: [U], mtu: 1 << 16 });
  // one acked client, one that acks late (packets against older baselines, applied at commit), one reliable-like
  const lags = [0, 3];
  const clients = lags.map(() => new ReplicationClient({ entities: [U] }));
  lags.forEach((_, c) => server.addClient(c));
  const queue: Uint8Array[][] = lags.map(() => []);
  const ids = Array.from({ length: 50 }, (_, i) => i + 1);
  let changedSeen = 0;
  let unsorted = 0;
  for (let k = 1; k <= 120; k++) {
    for (const id of ids) {
      const live = server.get(id) !== undefined;
      const q = r();
      if (!live) {
        if (q < 0.3) server.spawn(U, { x: r() * 10, y: 0, hp: 1, name: 'a', big: [] }, { id });
      } else if (q < 0.03) server.despawn(id);
      else if (q < 0.4) {
        const w = r();
        server.set(id, w < 0.3 ? { x: r() * 10 } : w < 0.6 ? { y: r(), hp: (r() * 256) | 0 } : w < 0.8 ? { name: String(k % 3) } : { big: [k % 2, 1] });
      }
    }
    server.tick();
    clients.forEach((cl, c) => {
      const snap = new Map([...cl.entities].map(([id, e]) => [id, { e, raw: [...e.raw] }]));
      const res = cl.receive(server.packetFor(c));
      if (res.ignored) return;
      const want = new Map<number, string[]>();
      for (const [id, b] of snap) {
        const e = cl.entities.get(id);
        if (e !== b.e) continue; // despawned or replaced
        const diff = e.def.list.filter((_f, i) => JSON.stringify(e.raw[i]) !== JSON.stringify(b.raw[i])).map((f) => f.name);
        if (diff.length > 0) want.set(id, diff);
      }
      const got = new Map([...res.changed].map(([id, v]) => [id, [...v]]));
      assert.deepEqual(new Map([...got].sort((a, b) => a[0] - b[0])), new Map([...want].sort((a, b) => a[0] - b[0])), `tick ${k} client ${c}`);
      for (const [id, v] of want) assert.deepEqual(res.changed.get(id), v);
      assert.equal(res.changed.size, want.size);
      const keys = [...res.changed.keys()];
      if (keys.some((x, i) => i > 0 && keys[i - 1]! > x)) unsorted++;
      changedSeen += want.size;
      queue[c]!.push(cl.ack());
      while (queue[c]!.length > lags[c]!) server.receive(c, queue[c]!.shift()!);
    });
  }
  assert.ok(changedSeen > 1000, `${changedSeen} changed entities checked`);
  // the lagging client's packets re-apply older baselines: changes found at commit come after the records' own
  assert.ok(unsorted > 0, `${unsorted} results with ids out of order (the index path)`);
});

test('values objects are plain objects: prototype Object.prototype, equal to a literal, printed and serialised as one, updated in place', () => {
  const U = defineEntity('U', { x: t.f32(), y: t.f32(), s: t.string(8), r: t.ref(), b: t.bool() });
  const server = new ReplicationServer({ session: 1, entities: [U] });
  const client = new ReplicationClient({ entities: [U] });
  server.addClient('c');
  const id = server.spawn(U, { x: 1.5, y: -2, s: 'a', r: null, b: true });
  server.tick();
  client.receive(server.packetFor('c'));
  server.receive('c', client.ack());
  const v = client.entities.get(id)!.values;
  assert.equal(Object.getPrototypeOf(v), Object.prototype);
  assert.equal(v.constructor, Object);
  assert.deepStrictEqual(v, { x: 1.5, y: -2, s: 'a', r: null, b: true });
  assert.equal(JSON.stringify(v), '{"x":1.5,"y":-2,"s":"a","r":null,"b":true}');
  assert.equal(Object.prototype.toString.call(v), '[object Object]');
  server.set(id, { x: 0.25, s: 'bc', b: false });
  server.tick();
  client.receive(server.packetFor('c'));
  assert.equal(client.entities.get(id)!.values, v, 'the same object');
  assert.deepStrictEqual(v, { x: 0.25, y: -2, s: 'bc', r: null, b: false });
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../../src/replication/index.js';
import { testHooks } from '../../src/replication/server.js';
import { EncodeError } from '../../src/core/errors.js';
import { rng } from '../helpers/rng.js';

// every column kind, and fields that are not columns (written with set() on both sides); x and y, c and g: two
// 32-bit columns in a row, which the change scan reads together
const Thing = defineEntity('Thing', {
  x: t.f32(),
  y: t.f32(),
  a: t.u8(),
  b: t.u16(),
  c: t.u32(),
  g: t.u32(),
  d: t.i8(),
  e: t.i16(),
  f: t.i32(),
  name: t.string(8),
  q: t.quantized(0, 10, 0.5),
});
const entities = [Thing] as const;
type ColName = 'x' | 'y' | 'a' | 'b' | 'c' | 'g' | 'd' | 'e' | 'f';
const COLS: ColName[] = ['x', 'y', 'a', 'b', 'c', 'g', 'd', 'e', 'f'];

/** What a typed-array store of `v` keeps, as the value set() is given on the side without columns. */
function stored(name: ColName, v: number): number {
  const A = { x: Float32Array, y: Float32Array, a: Uint8Array, b: Uint16Array, c: Uint32Array, g: Uint32Array, d: Int8Array, e: Int16Array, f: Int32Array }[
    name
  ];
  const arr = new A(1);
  arr[0] = v;
  return arr[0]!;
}

type Op =
  | { k: 'spawn'; v: number }
  | { k: 'despawn'; who: number }
  | { k: 'col'; who: number; field: ColName; v: number }
  | { k: 'set'; who: number; field: ColName; v: number }
  | { k: 'name'; who: number; s: string }
  | { k: 'stale'; who: number; field: ColName; v: number }
  | { k: 'tick' };

const value = fc.oneof(
  fc.integer({ min: -70000, max: 70000 }),
  fc.double({ noNaN: true, min: -1e6, max: 1e6 }),
  fc.constantFrom(0, -0, 255, 256, -1, 2 ** 31, 2 ** 32 - 1, NaN, Infinity),
);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ k: fc.constant('spawn' as const), v: fc.integer({ min: 0, max: 255 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('despawn' as const), who: fc.nat() }) },
  { weight: 6, arbitrary: fc.record({ k: fc.constant('col' as const), who: fc.nat(), field: fc.constantFrom(...COLS), v: value }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('set' as const), who: fc.nat(), field: fc.constantFrom(...COLS), v: fc.integer({ min: 0, max: 100 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('name' as const), who: fc.nat(), s: fc.string({ maxLength: 4 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('stale' as const), who: fc.nat(), field: fc.constantFrom(...COLS), v: value }) },
  { weight: 3, arbitrary: fc.constant({ k: 'tick' as const }) },
);

test('columns: a world moved through typed-array columns sends the bytes of the same world moved through set() (every column kind, spawns past the capacity, despawns, reused rows)', () => {
  let compared = 0;
  let staleWrites = 0;
  let grew = 0;
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 150 }), fc.array(op, { minLength: 200, maxLength: 1000 }), (pre, ops) => {
      const A = new ReplicationServer({ session: 1, entities }); // columns
      const B = new ReplicationServer({ session: 1, entities }); // set() only
      A.addClient(0);
      B.addClient(0);
      const ca = new ReplicationClient({ entities });
      const cols = A.columns(Thing);
      const first = cols.x;
      const live: number[] = [];
      const gone: { row: number }[] = [];
      // rows of entities despawned in earlier ticks, not reused by a spawn since
      const free = new Set<number>();
      const step = (): void => {
        A.tick();
        B.tick();
        const pa = A.packetFor(0);
        const pb = B.packetFor(0);
        assert.deepEqual(pa, pb);
        compared++;
        ca.receive(pa);
        A.receive(0, ca.ack());
        B.receive(0, ca.ack());
        for (const g of gone) free.add(g.row);
        gone.length = 0;
      };
      const all: Op[] = [...Array.from({ length: pre }, (_, i) => ({ k: 'spawn' as const, v: i & 255 })), ...ops];
      for (const o of all) {
        if (o.k === 'tick') {
          step();
          continue;
        }
        if (o.k === 'spawn') {
          // spawns on both sides in the same order give the same ids
          const vals = { x: o.v / 4, a: o.v, name: 'n' };
          const id = A.spawn(Thing, vals);
          assert.equal(B.spawn(Thing, vals), id);
          live.push(id);
          free.delete(A.rowOf(id));
          continue;
        }
        if (live.length === 0) continue;
        const i = o.who % live.length;
        const id = live[i]!;
        if (o.k === 'despawn') {
          gone.push({ row: A.rowOf(id) });
          A.despawn(id);
          B.despawn(id);
          live.splice(i, 1);
        } else if (o.k === 'col') {
          cols[o.field][A.rowOf(id)] = o.v;
          B.set(id, { [o.field]: stored(o.field, o.v) });
        } else if (o.k === 'set') {
          A.set(id, { [o.field]: o.v });
          B.set(id, { [o.field]: o.v });
          // set() writes the column
          assert.equal(cols[o.field][A.rowOf(id)], o.v);
        } else if (o.k === 'name') {
          A.set(id, { name: o.s });
          B.set(id, { name: o.s });
        } else if (o.k === 'stale' && gone.length + free.size > 0) {
          // the row of an entity despawned this tick, or a free row: ignored
          const rows = [...gone.map((g) => g.row), ...free];
          cols[o.field][rows[o.who % rows.length]!] = o.v;
          staleWrites++;
        }
        // the working values read back the same on both sides
        assert.deepEqual(A.get(id), B.get(id));
      }
      step();
      if (cols.x !== first) grew++;
    }),
    { numRuns: 60, seed: 20261127 },
  );
  console.log(`columns property: ${compared} packets compared, ${staleWrites} writes to despawned rows, ${grew} runs grew the table`);
  assert.ok(compared > 1000, `compared ${compared} packets`);
  assert.ok(staleWrites > 20, `${staleWrites} writes to despawned rows`);
  assert.ok(grew > 5, `${grew} runs grew the table past its first capacity`);
});

test('columns and handles: ticks of numeric changes only (published in one pass, the usual packet written as they are) send the bytes of the general path, to clients that lag, lose packets and acks, with and without bundles, and a small MTU', () => {
  const Unit = defineEntity('Unit', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(16) });
  const defs = [Unit] as const;
  let compared = 0;
  let bundles = 0;
  let onlyColumns = 0;
  let unordered = 0;
  // (without bundles, a client that lost a packet gets last tick's records merged with this tick's)
  for (const [mtu, bundled] of [
    [1200, true],
    [1200, false],
    [300, true],
  ] as const) {
    const r = rng(mtu + Number(bundled));
    const A = new ReplicationServer({ session: 1, entities: defs, mtu, bundles: bundled }); // columns
    testHooks.generalOnly = true;
    const B = new ReplicationServer({ session: 1, entities: defs, mtu, bundles: bundled }); // set(), the general path only: the reference
    testHooks.generalOnly = false;
    const C = new ReplicationServer({ session: 1, entities: defs, mtu, bundles: bundled }); // handles, in any order
    const live: number[] = [];
    const hs = new Map<number, { x: number; y: number; hp: number }>();
    const spawn = (): void => {
      const vals = { x: r() * 100, y: r() * 100, hp: (r() * 100) | 0, name: `u${live.length}` };
      const id = A.spawn(Unit, vals);
      assert.equal(B.spawn(Unit, vals), id);
      assert.equal(C.spawn(Unit, vals), id);
      hs.set(id, C.handle(Unit, id));
      live.push(id);
    };
    for (let i = 0; i < 120; i++) spawn();
    const cols = A.columns(Unit);
    // client 0 keeps up; the others lose packets and acks (up to 60 %)
    const loss = [0, 0.1, 0.3, 0.6, 0.2];
    const clients = loss.map((_, c) => {
      A.addClient(c);
      B.addClient(c);
      C.addClient(c);
      return new ReplicationClient({ entities: defs });
    });
    for (let k = 0; k < 400; k++) {
      // most ticks change x, y (and hp on C: set back to what it is) only; some also set() a field, despawn or spawn
      // (every entity is published the general way then)
      const other = r() < 0.15;
      if (!other) onlyColumns++;
      const moves: [number, number, number][] = [];
      for (const id of live) {
        if (r() >= 0.1) continue;
        const row = A.rowOf(id);
        const x = cols.x[row]! + (r() - 0.5);
        const y = r() < 0.8 ? cols.y[row]! + (r() - 0.5) : cols.y[row]!;
        cols.x[row] = x;
        cols.y[row] = y;
        B.set(id, { x: Math.fround(x), y: Math.fround(y) });
        moves.push([id, x, y]);
      }
      // C's handles: in id order, or backwards (ids no longer ascending: the general build), with hp written back
      // to its value, or set away and back (no change)
      const back = r() < 0.3;
      if (back && moves.length > 1) unordered++;
      if (back) moves.reverse();
      for (const [id, x, y] of moves) {
        const h = hs.get(id)!;
        const hp = h.hp;
        if (r() < 0.2) h.hp = (hp + 1) & 255;
        h.x = x;
        h.y = y;
        h.hp = hp;
      }
      if (other) {
        const w = r();
        const i = (r() * live.length) | 0;
        if (w < 0.4) {
          A.set(live[i]!, { hp: k & 255 });
          B.set(live[i]!, { hp: k & 255 });
          C.set(live[i]!, { hp: k & 255 });
        } else if (w < 0.7 && live.length > 60) {
          A.despawn(live[i]!);
          B.despawn(live[i]!);
          C.despawn(live[i]!);
          hs.delete(live[i]!);
          live.splice(i, 1);
        } else spawn();
      }
      A.tick();
      B.tick();
      C.tick();
      for (let c = 0; c < clients.length; c++) {
        const pa = A.packetFor(c);
        const pb = B.packetFor(c);
        assert.deepEqual(pa, pb, `columns: mtu ${mtu}, bundles ${bundled}, tick ${k}, client ${c}`);
        assert.deepEqual(C.packetFor(c), pb, `handles: mtu ${mtu}, bundles ${bundled}, tick ${k}, client ${c}`);
        compared++;
        if (pa[0] === 0xb3) bundles++;
        if (r() < loss[c]!) continue;
        clients[c]!.receive(pa);
        if (r() < loss[c]!) continue;
        const ack = clients[c]!.ack();
        A.receive(c, ack);
        B.receive(c, ack);
        C.receive(c, ack);
      }
    }
  }
  console.log(
    `numeric changes only: ${compared} packets compared, ${bundles} bundles, ${onlyColumns} ticks of x, y changes only, ${unordered} with handles out of id order`,
  );
  assert.ok(compared === 3 * 400 * 5, `compared ${compared}`);
  assert.ok(unordered > 200, `${unordered} ticks out of id order`);
  assert.ok(bundles > 100, `${bundles} bundles`);
  assert.ok(onlyColumns > 900, `${onlyColumns} ticks of column changes only`);
});

test('columns: handles and set() validate; a column write of any number is stored as the typed array stores it', () => {
  const s = new ReplicationServer({ session: 1, entities });
  const id = s.spawn(Thing, { x: 1 });
  const h = s.handle(Thing, id);
  const cols = s.columns(Thing);
  const row = s.rowOf(id);
  assert.equal(cols.x[row], 1);
  h.x = 2.5;
  assert.equal(cols.x[row], 2.5);
  assert.throws(() => (h.a = 256), EncodeError);
  assert.throws(() => s.set(id, { a: -1 }), EncodeError);
  cols.a[row] = 300; // typed-array semantics: 300 & 255
  s.tick();
  assert.equal(s.get(id)!.values.a, 44);
  assert.equal(h.a, 44);
  s.despawn(id);
  assert.throws(() => (h.x = 3), EncodeError);
  assert.throws(() => s.rowOf(id), EncodeError);
});

test('columns: two 32-bit columns scanned together find every change of either, in either row of a pair, bit for bit (±0, NaN, Infinity)', () => {
  const P = defineEntity('P', { x: t.f32(), y: t.f32(), hp: t.u8() });
  const defs = [P] as const;
  const A = new ReplicationServer({ session: 1, entities: defs }); // columns
  const B = new ReplicationServer({ session: 1, entities: defs }); // set() only
  const c = new ReplicationClient({ entities: defs });
  A.addClient(0);
  B.addClient(0);
  // 6 entities: rows 0..5, three pairs of rows (the scan reads rows 2k and 2k + 1 of both columns as one word each)
  const ids = Array.from({ length: 6 }, () => {
    const id = A.spawn(P, { x: 0, y: 0 });
    assert.equal(B.spawn(P, { x: 0, y: 0 }), id);
    return id;
  });
  const cols = A.columns(P);
  const specials = [0, -0, NaN, Infinity, -Infinity, 1.5, -1.5, 2 ** -140];
  const r = rng(7);
  let changes = 0;
  for (let k = 0; k < 600; k++) {
    // one to three writes: a column, a row, a special value (often the one the row has, or its sign flipped)
    const n = 1 + ((r() * 3) | 0);
    for (let j = 0; j < n; j++) {
      const which = r() < 0.5 ? 'x' : 'y';
      const i = (r() * 6) | 0;
      const row = A.rowOf(ids[i]!);
      const cur = cols[which][row]!;
      const v = r() < 0.3 ? -cur : specials[(r() * specials.length) | 0]!;
      if (!Object.is(Math.fround(v), cur)) changes++;
      cols[which][row] = v;
      B.set(ids[i]!, { [which]: v });
    }
    A.tick();
    B.tick();
    const pa = A.packetFor(0);
    assert.deepEqual(pa, B.packetFor(0), `tick ${k}`);
    c.receive(pa);
    A.receive(0, c.ack());
    B.receive(0, c.ack());
    for (const id of ids) {
      const got = c.entities.get(id)!.values;
      const row = A.rowOf(id);
      assert.ok(Object.is(got.x, cols.x[row]) && Object.is(got.y, cols.y[row]), `tick ${k}, entity ${id}: ${got.x}, ${got.y}`);
    }
  }
  assert.ok(changes > 600, `${changes} changes`);
});

test('columns: the change scan finds a value written back to what was published (no new version, no record)', () => {
  const s = new ReplicationServer({ session: 1, entities });
  const c = new ReplicationClient({ entities });
  s.addClient(0);
  const ids = Array.from({ length: 10 }, (_, i) => s.spawn(Thing, { x: i }));
  const cols = s.columns(Thing);
  const sync = (): number => {
    s.tick();
    const p = s.packetFor(0);
    const r = c.receive(p);
    s.receive(0, c.ack());
    return r.changed.size;
  };
  sync();
  cols.x[s.rowOf(ids[3]!)] = 7.5;
  cols.x[s.rowOf(ids[4]!)] = 4; // its own value: no change
  assert.equal(sync(), 1);
  assert.equal(c.entities.get(ids[3]!)!.values.x, 7.5);
  cols.x[s.rowOf(ids[3]!)] = 1;
  cols.x[s.rowOf(ids[3]!)] = 7.5; // back to the published value before the tick
  assert.equal(sync(), 0);
});

test('columns: typed by field kind (tsc checks the annotations; a field that is no column is no key)', () => {
  const s = new ReplicationServer({ session: 1, entities });
  s.spawn(Thing, {});
  const cols = s.columns(Thing);
  const f32: Float32Array = cols.x;
  const u8: Uint8Array = cols.a;
  const u16: Uint16Array = cols.b;
  const u32: Uint32Array = cols.c;
  const i8: Int8Array = cols.d;
  const i16: Int16Array = cols.e;
  const i32: Int32Array = cols.f;
  // @ts-expect-error a string field is no column
  void cols.name;
  // @ts-expect-error a quantized field is no column
  void cols.q;
  assert.deepEqual(
    [f32, u8, u16, u32, i8, i16, i32].map((a) => a.constructor.name),
    ['Float32Array', 'Uint8Array', 'Uint16Array', 'Uint32Array', 'Int8Array', 'Int16Array', 'Int32Array'],
  );
  assert.deepEqual(Object.keys(cols).sort(), [...COLS].sort());
  // the same object on every call
  assert.equal(s.columns(Thing), cols);
});

test('rows are reused: 20,000 spawns and despawns with at most 100 entities alive keep the table at 128 rows', () => {
  const s = new ReplicationServer({ session: 1, entities });
  s.addClient(0);
  const cols = s.columns(Thing);
  const live: number[] = [];
  const want = new Map<number, number>();
  let k = 0;
  for (let i = 0; i < 20_000; i++) {
    if (live.length >= 100 || (live.length > 0 && i % 3 === 0)) s.despawn(live.splice(i % live.length, 1)[0]!);
    const id = s.spawn(Thing, { x: i });
    live.push(id);
    cols.x[s.rowOf(id)] = i + 0.5;
    want.set(id, i + 0.5);
    if (++k % 7 === 0) {
      s.tick();
      s.packetFor(0);
    }
  }
  const table = (s as unknown as { tables: { capacity: number; used: number }[] }).tables[0]!;
  assert.ok(table.capacity <= 128, `capacity ${table.capacity}`);
  assert.ok(table.used <= 100 + 7, `${table.used} rows in use`);
  // every live entity has its own row: its last write
  for (const id of live) assert.equal(s.get(id)!.values.x, want.get(id));
});

test('handles and columns: the tick stream’s records carry id gaps of every length (up to 2^32 - 2) as the general path writes them', () => {
  const Unit = defineEntity('Unit', { x: t.f32(), y: t.f32(), hp: t.u8() });
  const defs = [Unit] as const;
  const r = rng(77);
  const ids = [1, 2, 3, 200, 40000, 65536, 65537, 131073, 2 ** 24 + 9, 2 ** 31 - 1, 2 ** 31, 2 ** 31 + 5, 2 ** 32 - 2, 2 ** 32 - 1];
  testHooks.generalOnly = true;
  const ref = new ReplicationServer({ session: 1, entities: defs });
  testHooks.generalOnly = false;
  const viaHandles = new ReplicationServer({ session: 1, entities: defs });
  const viaColumns = new ReplicationServer({ session: 1, entities: defs });
  const cols = viaColumns.columns(Unit);
  for (const id of ids) for (const s of [ref, viaHandles, viaColumns]) s.spawn(Unit, { x: id % 97, y: 0, hp: 1 }, { id });
  const hs = ids.map((id) => viaHandles.handle(Unit, id));
  const client = new ReplicationClient({ entities: defs });
  for (const s of [ref, viaHandles, viaColumns]) s.addClient('c');
  let records = 0;
  for (let k = 0; k < 300; k++) {
    for (let i = 0; i < ids.length; i++) {
      // a random subset moves: gaps between changed ids of every size
      if (r() < 0.5) continue;
      const x = (r() - 0.5) * (r() < 0.2 ? 1e30 : 10);
      ref.set(ids[i]!, { x: Math.fround(x) });
      hs[i]!.x = x;
      cols.x[viaColumns.rowOf(ids[i]!)] = x;
      records++;
    }
    for (const s of [ref, viaHandles, viaColumns]) s.tick();
    const p = ref.packetFor('c');
    assert.deepEqual(viaHandles.packetFor('c'), p, `handles, tick ${k}`);
    assert.deepEqual(viaColumns.packetFor('c'), p, `columns, tick ${k}`);
    client.receive(p);
    const ack = client.ack();
    for (const s of [ref, viaHandles, viaColumns]) s.receive('c', ack);
  }
  for (const id of ids) assert.ok(Object.is(client.entities.get(id)!.values.x, ref.get(id)!.values.x), `id ${id}`);
  assert.ok(records > 1500, `${records} records`);
});

test('handles and columns: a tick stream in many pieces (runs of two types in turn, runs longer than a chunk, arenas filled up) is the usual packet of the general path', () => {
  // two types whose ids alternate in runs: handles moved in id order go to publishRun one type at a time, each run a
  // piece of the stream; thousands of moves a tick take several chunks and fill the arena mid-tick. A client that
  // loses packets gets last tick's records (found by their start bits in the stream) merged with this tick's
  const A = defineEntity('A', { x: t.f32(), y: t.f32(), hp: t.u8() });
  const B = defineEntity('B', { u: t.i32(), v: t.f32() });
  const defs = [A, B] as const;
  const r = rng(91);
  testHooks.generalOnly = true;
  const ref = new ReplicationServer({ session: 1, entities: defs, mtu: 1 << 20, bundles: false });
  testHooks.generalOnly = false;
  const viaHandles = new ReplicationServer({ session: 1, entities: defs, mtu: 1 << 20, bundles: false });
  const viaColumns = new ReplicationServer({ session: 1, entities: defs, mtu: 1 << 20, bundles: false });
  const ca = viaColumns.columns(A);
  const cb = viaColumns.columns(B);
  const kinds: ('A' | 'B')[] = [];
  for (let i = 0; i < 6000; i++) {
    const k = Math.floor(i / (1 + (i % 7))) % 2 === 0 ? 'A' : 'B';
    kinds.push(k);
    for (const s of [ref, viaHandles, viaColumns]) {
      if (k === 'A') s.spawn(A, { x: i, y: -i, hp: i & 255 });
      else s.spawn(B, { u: i, v: i / 3 });
    }
  }
  const ids = kinds.map((_, i) => i + 1);
  const ha = new Map(ids.filter((id) => kinds[id - 1] === 'A').map((id) => [id, viaHandles.handle(A, id)]));
  const hb = new Map(ids.filter((id) => kinds[id - 1] === 'B').map((id) => [id, viaHandles.handle(B, id)]));
  const clients = ['c', 'd'].map(() => new ReplicationClient({ entities: defs }));
  for (const s of [ref, viaHandles, viaColumns]) for (const key of ['c', 'd']) s.addClient(key);
  const pieces = (s: ReplicationServer<typeof defs>): number => (s as unknown as { segN: number }).segN;
  let most = 0;
  let records = 0;
  for (let k = 0; k < 60; k++) {
    const share = k % 3 === 0 ? 0.9 : 0.3;
    for (const id of ids) {
      if (r() >= share) continue;
      records++;
      const row = viaColumns.rowOf(id);
      if (kinds[id - 1] === 'A') {
        const x = Math.fround((r() - 0.5) * (r() < 0.1 ? 1e20 : 100));
        ref.set(id, { x });
        ha.get(id)!.x = x;
        ca.x[row] = x;
      } else {
        const u = (r() * 2 ** 32 - 2 ** 31) | 0;
        ref.set(id, { u });
        hb.get(id)!.u = u;
        cb.u[row] = u;
      }
    }
    for (const s of [ref, viaHandles, viaColumns]) s.tick();
    most = Math.max(most, pieces(viaHandles));
    for (const [c, key] of ['c', 'd'].entries()) {
      const p = ref.packetFor(key);
      assert.deepEqual(viaHandles.packetFor(key), p, `handles, tick ${k}, client ${key}`);
      assert.deepEqual(viaColumns.packetFor(key), p, `columns, tick ${k}, client ${key}`);
      if (c === 1 && r() < 0.4) continue;
      clients[c]!.receive(p);
      const ack = clients[c]!.ack();
      for (const s of [ref, viaHandles, viaColumns]) s.receive(key, ack);
    }
  }
  for (const client of clients) for (const id of ids) assert.deepEqual(client.entities.get(id)!.values, ref.get(id)!.values, `id ${id}`);
  assert.ok(most > 100, `at most ${most} pieces in a tick`);
  assert.ok(records > 100_000, `${records} records`);
});

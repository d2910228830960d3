/**
 * Hostile input, second round: ids chosen to collide in the controller table, a
 * mirror grown by opaque bytes, the limits of `apply(packet)`, and encoder inputs
 * the decoder read back as something else. Each test here failed before its fix.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { EncodeError, LimitError } from '../../src/core/errors.js';
import {
  ControllerTable,
  ScrapMechanicSession,
  decodeBody,
  decodeMessage,
  encodeBody,
  encodeMessage,
  toJson,
  type NetworkUpdate,
  type Packet,
} from '../../src/protocols/scrapmechanic/index.js';
import { networkUpdate, updateSequence } from './arbitraries.js';

// --- controller table: ids that all shared slot 0 under the old, unkeyed hash ---------

/** The ids of NetObj type `ot` that the old hash, `Math.imul(id ^ (ot << 27), 0x9e3779b1)`, sent to slot 0 of any table. */
function collidingIds(ot: number, n: number): number[] {
  const A = 0x9e3779b1;
  let inv = A; // A⁻¹ mod 2³² (Newton)
  for (let i = 0; i < 5; i++) inv = Math.imul(inv, 2 - Math.imul(A, inv));
  assert.equal(Math.imul(A, inv), 1);
  // Math.imul(id ^ (ot << 27), A) = k: below 2²² the top bits (the slot) are 0 up to 4M slots
  return Array.from({ length: n }, (_, k) => (Math.imul(k, inv) ^ (ot << 27)) >>> 0);
}

/** The longest distance of an entry from its home slot, read from the table's internals. */
function maxDisplacement(t: ControllerTable): number {
  const x = t as unknown as { tab: Int32Array; mask: number; slot(ot: number, id: number): number };
  let max = 0;
  for (let i = 0; i <= x.mask; i++) {
    const m = x.tab[2 * i + 1]!;
    if (m === 0) continue;
    const d = (i - x.slot(m & 31, x.tab[2 * i]! >>> 0) + x.mask + 1) & x.mask;
    if (d > max) max = d;
  }
  return max;
}

/** A 0x16 body of `ids.length` Creates of Controllers (opaque type 3, no data). */
function controllerCreates(ids: number[]): Uint8Array {
  const b = new Uint8Array(4 + 8 * ids.length);
  const dv = new DataView(b.buffer);
  dv.setUint32(0, 1);
  let p = 4;
  for (const id of ids) {
    dv.setUint16(p, 8);
    b[p + 2] = (1 << 5) | 3;
    dv.setUint32(p + 4, id);
    p += 8;
  }
  return b;
}

test('controller table: 16,384 ids that all collided under the old hash spread out (longest probe under 64; was 16,383), whatever the key', () => {
  for (const seed of [0, 1, -1, 0x9e3779b9, undefined]) {
    const t = new ControllerTable(seed);
    const ids = collidingIds(3, 16_384);
    const rigid = collidingIds(0, 4_096);
    for (const id of ids) t.set(3, id, id & 0xff);
    for (const id of rigid) t.set(0, id, 2);
    assert.equal(t.size, ids.length + rigid.length);
    const d = maxDisplacement(t);
    assert.ok(d < 64, `seed ${seed}: an entry ${d} slots from its home`);
    for (const id of ids) assert.equal(t.get(3, id), id & 0xff);
    for (const id of rigid) assert.equal(t.get(0, id), 2);
    // deletes keep every chain intact
    for (let i = 0; i < ids.length; i += 2) t.delete(3, ids[i]!);
    for (let i = 0; i < ids.length; i++) assert.equal(t.get(3, ids[i]!), i % 2 === 0 ? undefined : ids[i]! & 0xff);
    assert.ok(maxDisplacement(t) < 64);
  }
});

test('controller table: a decoded body of 16,384 Creates with colliding ids leaves short probe chains', () => {
  const ids = collidingIds(3, 16_384);
  const tracker = new ControllerTable(12345);
  const body = decodeBody(controllerCreates(ids), { tracker });
  assert.equal(body.updates.length, ids.length);
  assert.equal(tracker.size, ids.length);
  const d = maxDisplacement(tracker);
  assert.ok(d < 64, `an entry ${d} slots from its home`);
});

test('controller table: the key never shows: entries() and encoded bytes are the same for every key', () => {
  const ops = (t: ControllerTable) => {
    for (let i = 0; i < 3000; i++) t.set(i % 7, (i * 2654435761) >>> 0, i % 50);
    for (let i = 0; i < 3000; i += 3) t.delete(i % 7, (i * 2654435761) >>> 0);
    return t.entries();
  };
  const a = ops(new ControllerTable(1));
  assert.deepEqual(ops(new ControllerTable(2)), a);
  assert.deepEqual(ops(new ControllerTable()), a);
  const m = encodeMessage({
    packetId: 0x16,
    tick: 1,
    updates: collidingIds(3, 500).map((id) => ({ updateType: 'Create', netObjType: 'Controller', controllerType: 0, id, data: null })),
  });
  assert.deepEqual(encodeMessage(toJson(decodeMessage(m))), m);
});

// --- the mirror's bytes: smMaxStoreBytes -------------------------------------------

/** Creates of `count` Controllers from `first`, each with 32,759 opaque bytes (the most a RawUpdate holds). */
function bigOpaqueCreates(first: number, count: number): NetworkUpdate[] {
  return Array.from({ length: count }, (_, i) => ({
    updateType: 'Create' as const,
    netObjType: 'Controller' as const,
    controllerType: 0,
    id: first + i,
    data: null,
    opaque: new Uint8Array(32_759).fill(i + 1),
  }));
}

function heldHex(s: ScrapMechanicSession): number {
  let n = 0;
  for (const o of s.objects.values()) if (typeof o.fields.opaque === 'string') n += o.fields.opaque.length;
  return n;
}

test('smMaxStoreBytes: 60 messages of 16 objects with 32 KB of opaque bytes each stop at the limit; refused ones change nothing; removes make room', () => {
  const max = 4 * 1024 * 1024;
  const s = new ScrapMechanicSession({ limits: { smMaxStoreBytes: max } });
  let refused = 0;
  for (let m = 0; m < 60; m++) {
    const bytes = encodeMessage({ packetId: 0x16, tick: m, updates: bigOpaqueCreates(m * 16, 16) });
    const before = [s.objects.size, s.storeBytes, s.controllers.size];
    try {
      s.apply(bytes);
    } catch (e) {
      assert.ok(e instanceof LimitError && e.limit === 'smMaxStoreBytes', String(e));
      assert.deepEqual([s.objects.size, s.storeBytes, s.controllers.size], before);
      refused++;
    }
    assert.ok(heldHex(s) <= max, `${heldHex(s)} hex characters held`);
  }
  assert.ok(s.storeBytes <= max, `storeBytes ${s.storeBytes}`);
  // 16 objects are about 1 MiB of hex: three messages fit in 4 MiB
  assert.equal(s.objects.size, 48);
  assert.equal(refused, 57);
  // an Update replacing the opaque bytes of a held object is counted too
  const upd = encodeMessage({
    packetId: 0x16,
    tick: 99,
    updates: [{ updateType: 'Update', netObjType: 'Controller', id: 0, data: null, opaque: new Uint8Array(10) }],
  });
  const held = s.storeBytes;
  s.apply(upd);
  assert.equal(s.storeBytes, held - 2 * 32_749);
  const removes = Array.from({ length: 48 }, (_, id) => ({ updateType: 'Remove' as const, netObjType: 'Controller' as const, id, data: null }));
  s.apply(encodeMessage({ packetId: 0x16, tick: 100, updates: removes }));
  assert.equal(s.objects.size, 0);
  assert.equal(s.storeBytes, 0);
  s.apply(encodeMessage({ packetId: 0x16, tick: 101, updates: bigOpaqueCreates(1000, 16) }));
  assert.equal(s.objects.size, 16);
});

/** What the README says `smMaxStoreBytes` counts for one object's fields. */
function documentedBytes(v: unknown): number {
  if (typeof v === 'string') return 16 + v.length;
  if (v === null || typeof v !== 'object') return 8;
  let n = 16;
  if (Array.isArray(v)) for (const x of v) n += 8 + documentedBytes(x);
  else for (const [k, x] of Object.entries(v)) n += 8 + k.length + documentedBytes(x);
  return n;
}

test('property: storeBytes is what the mirror holds (256 + its fields per object), never past smMaxStoreBytes; a refused message changes nothing', () => {
  let refusedCount = 0;
  fc.assert(
    fc.property(fc.array(updateSequence, { minLength: 1, maxLength: 8 }), fc.integer({ min: 500, max: 20_000 }), (ticks, max) => {
      const s = new ScrapMechanicSession({ limits: { smMaxStoreBytes: max } });
      ticks.forEach((updates, tick) => {
        let packet: Packet;
        try {
          packet = { packetId: 0x16, tick, updates: decodeBody(encodeBody({ tick, updates })).updates };
        } catch {
          return;
        }
        const before = JSON.stringify([...s.objects.values()]);
        const held = s.storeBytes;
        try {
          s.apply(tick % 2 === 0 ? packet : encodeMessage(packet));
        } catch (e) {
          if (!(e instanceof LimitError)) throw e;
          assert.equal(e.limit, 'smMaxStoreBytes');
          assert.equal(JSON.stringify([...s.objects.values()]), before);
          assert.equal(s.storeBytes, held);
          refusedCount++;
        }
        let want = 0;
        for (const o of s.objects.values()) want += 256 + documentedBytes(o.fields);
        assert.equal(s.storeBytes, want);
        assert.ok(s.storeBytes <= max);
      });
    }),
    { numRuns: 300 },
  );
  assert.ok(refusedCount > 10, `${refusedCount} refused`);
});

// --- apply(packet) checks the limits too ------------------------------------------

test('apply(decoded packet): past smMaxObjects or smMaxStoreBytes, a LimitError and nothing applied (as apply(bytes))', () => {
  const updates = Array.from({ length: 100 }, (_, i) => ({ updateType: 'Create', netObjType: 'Controller', controllerType: 0, id: i }));
  const bytes = encodeMessage({ packetId: 0x16, tick: 1, updates });
  for (const input of [bytes, decodeMessage(bytes)]) {
    const s = new ScrapMechanicSession({ limits: { smMaxObjects: 10 } });
    assert.throws(
      () => s.apply(input),
      (e) => e instanceof LimitError && e.limit === 'smMaxObjects',
    );
    assert.equal(s.objects.size, 0);
  }
  const big = decodeMessage(encodeMessage({ packetId: 0x16, tick: 1, updates: bigOpaqueCreates(0, 16) }));
  const s = new ScrapMechanicSession({ limits: { smMaxStoreBytes: 1 << 20 } });
  assert.throws(
    () => s.apply(big),
    (e) => e instanceof LimitError && e.limit === 'smMaxStoreBytes',
  );
  assert.equal(s.objects.size, 0);
});

// --- encoder inputs the decoder read back as something else ----------------------

const color = { r: 1, g: 2, b: 3, a: 4 };
const q = { x: 0, y: 0, z: 0, w: 1 };
const harvestCreate = (extra: Record<string, unknown>, a: unknown = 0) => ({
  updateType: 'Create',
  netObjType: 'Harvestable',
  controllerType: 0,
  id: 1,
  data: { worldId: 1, uuidIndex: 2, position: { x: 0, y: 0, z: 0 }, rotation: q, unknownA: a, unknownB: 0 },
  ...extra,
});

test('encoder: trailing bytes on a Harvestable (a layout of exact lengths) are an EncodeError, not another value on decode', () => {
  const cases = [
    { updateType: 'Update', netObjType: 'Harvestable', id: 5, data: { color }, trailing: 'aabbccdd' }, // read back as seatedCharacterId
    { updateType: 'Update', netObjType: 'Harvestable', id: 5, data: { color, seatedCharacterId: 7 }, trailing: 'aa' }, // read back as opaque
    harvestCreate({ trailing: '00' }),
    { updateType: 'Update', netObjType: 'Harvestable', id: 5, data: null, trailing: '01020304' }, // read back as data
  ];
  for (const u of cases) {
    assert.throws(
      () => encodeBody({ tick: 1, updates: [u] }),
      (e) => e instanceof EncodeError && e.path === 'updates[0].trailing',
      JSON.stringify(u),
    );
  }
  // empty trailing adds nothing and is accepted
  const u = { updateType: 'Update', netObjType: 'Harvestable', id: 5, data: { color }, trailing: '' };
  assert.deepEqual(toJson(decodeBody(encodeBody({ tick: 1, updates: [u] })).updates[0]!.data), { color });
});

test('encoder: a finite float16 past float32 range (1e39, -1e300, MAX_VALUE) is an EncodeError, not ±Infinity', () => {
  for (const v of [1e39, -1e300, Number.MAX_VALUE, -3.5e38]) {
    assert.throws(
      () => encodeBody({ tick: 1, updates: [harvestCreate({}, v)] }),
      (e) => e instanceof EncodeError && e.path === 'updates[0].data.unknownA',
      String(v),
    );
  }
  for (const [v, back] of [
    [Infinity, 'Infinity'],
    ['-Infinity', '-Infinity'],
    [65504, 65504],
  ] as const) {
    const u = decodeBody(encodeBody({ tick: 1, updates: [harvestCreate({}, v)] })).updates[0]!;
    assert.equal((toJson(u.data) as { unknownA: unknown }).unknownA, back);
  }
});

test('encoder: a Create whose variant contradicts its controller type is an EncodeError, not the other variant on decode', () => {
  const bad = [
    { updateType: 'Create', netObjType: 'ChildShape', controllerType: 31, id: 1, variant: 'part' },
    { updateType: 'Create', netObjType: 'ChildShape', controllerType: 32, id: 1, variant: 'block' },
    { updateType: 'Create', netObjType: 'ChildShape', controllerType: 40, id: 1, variant: 'block' },
    {
      updateType: 'Create',
      netObjType: 'RigidBody',
      controllerType: 1,
      id: 1,
      variant: 'dynamic',
      data: { worldId: 1, rotation: q, position: { x: 0, y: 0, z: 0 } },
    },
    { updateType: 'Create', netObjType: 'Controller', controllerType: 0, id: 1, variant: 'static' },
  ];
  for (const u of bad) {
    assert.throws(
      () => encodeBody({ tick: 1, updates: [u] }),
      (e) => e instanceof EncodeError && e.path === 'updates[0].variant',
      JSON.stringify(u),
    );
  }
  const ok = { updateType: 'Create', netObjType: 'ChildShape', controllerType: 32, id: 1, variant: 'part' };
  assert.equal(decodeBody(encodeBody({ tick: 1, updates: [ok] })).updates[0]!.variant, 'part');
});

test('property: a Create with any variant, a Harvestable with any trailing bytes or float16: what encode accepts decodes to what was given', () => {
  const variant = fc.constantFrom(undefined, 'block', 'part', 'static', 'dynamic');
  const creates = networkUpdate.filter((u) => u.updateType === 'Create');
  const harvest = fc.record({
    trailing: fc.option(fc.uint8Array({ maxLength: 6 }), { nil: undefined }),
    a: fc.oneof(fc.double(), fc.constantFrom(1e39, -1e39, 3.4028235677973366e38, 65504, 65520, 2 ** -24)),
  });
  let accepted = 0;
  fc.assert(
    fc.property(creates, variant, harvest, (u, v, h) => {
      const xs = [
        toJson(v === undefined ? u : { ...u, variant: v }) as Record<string, unknown>,
        toJson(harvestCreate(h.trailing === undefined ? {} : { trailing: h.trailing }, h.a)) as Record<string, unknown>,
      ];
      // a float16 is written from the float32 nearest the value (the JSON form's convention)
      const want = [xs[0]!.data, { ...(xs[1]!.data as object), unknownA: toJson(Math.fround(h.a)) }];
      for (const [i, x] of xs.entries()) {
        let bytes: Uint8Array;
        try {
          bytes = encodeBody({ tick: 1, updates: [x] });
        } catch (e) {
          assert.ok(e instanceof EncodeError, String(e));
          continue;
        }
        accepted++;
        const y = toJson(decodeBody(bytes).updates[0]) as Record<string, unknown>;
        if (x.variant !== undefined) assert.equal(y.variant, x.variant, JSON.stringify(x));
        assert.deepEqual(y.data, want[i], JSON.stringify(x));
        assert.equal(y.trailing ?? '', x.trailing ?? '', JSON.stringify(x));
      }
    }),
    { numRuns: 2000 },
  );
  assert.ok(accepted > 400, `${accepted} accepted`);
});

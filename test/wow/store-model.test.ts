/**
 * The object store against a straightforward model (a native `Map` of plain
 * value arrays, written from §11 without the store's slabs, records or guid
 * table), on random sequences of creates, VALUES, MOVEMENT, out-of-range and
 * destroy, over guids of every high-guid type, guids above 2^53 and guids that
 * share their low 32 bits. And `GuidMap` against a native `Map` on random
 * operations, iteration during mutation included.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  OBJECT_TYPES,
  ObjectStore,
  PackedValues,
  SMSG_DESTROY_OBJECT,
  decodeBody,
  encodeBody,
  type StoreEvent,
  type UpdateBlock,
  type UpdateBody,
} from '../../src/protocols/wow/index.js';
import { GuidMap, LONG_CHAIN } from '../../src/protocols/wow/guid-map.js';
import { movementArb } from './arbitraries.js';

// guids: a few of each kind, so that a sequence meets the same guid again
const HIGH = [0x0000n, 0x4000n, 0xf110n, 0xf120n, 0xf130n, 0xf140n, 0xf100n, 0xf101n, 0x1fc0n, 0xffffn];
const guidArb = fc.oneof(
  fc.integer({ min: 1, max: 6 }).map(BigInt), // small players
  fc
    .tuple(fc.constantFrom(...HIGH), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 4 }))
    .map(([h, entry, low]) => (h << 48n) | (BigInt(1000 + entry) << 24n) | BigInt(low)),
  // the same low 32 bits under different high words (one chain in the table)
  fc.tuple(fc.constantFrom(1n, 2n, 0x20_0000n, 0xffff_ffffn), fc.constantFrom(7n, 0xffff_ffffn)).map(([hi, lo]) => (hi << 32n) | lo),
  fc.constantFrom(2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n, 0n),
);

/** Values for a type: slots mostly inside it, some past its end (dropped and reported). */
function valuesFor(typeId: number): fc.Arbitrary<PackedValues> {
  const count = OBJECT_TYPES[typeId]?.valuesCount ?? 8;
  const maxMask = Math.min(255, Math.ceil((count + 40) / 32));
  return fc.array(fc.tuple(fc.integer({ min: 0, max: count + 39 }), fc.integer({ min: 0, max: 0xffffffff })), { maxLength: 12 }).chain((pairs) =>
    fc.integer({ min: 0, max: maxMask }).map((extraWords) => {
      const bySlot = new Map(pairs);
      const slots = [...bySlot.keys()].sort((a, b) => a - b);
      const n = Math.max(extraWords, slots.length === 0 ? 0 : (slots[slots.length - 1]! >>> 5) + 1);
      const mask = new Uint32Array(n);
      for (const s of slots) mask[s >>> 5]! |= 1 << (s & 31);
      return PackedValues.of(
        mask,
        slots.map((s) => bySlot.get(s)!),
      );
    }),
  );
}

const typeArb = fc.oneof({ weight: 8, arbitrary: fc.integer({ min: 0, max: 7 }) }, { weight: 1, arbitrary: fc.constantFrom(8, 200) });

const blockArb: fc.Arbitrary<UpdateBlock> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .tuple(fc.constantFrom(2 as const, 3 as const), guidArb, typeArb, movementArb)
      .chain(([updateType, guid, objectTypeId, movement]) =>
        valuesFor(objectTypeId).map((values): UpdateBlock => ({ updateType, guid, objectTypeId, movement, values })),
      ),
  },
  {
    weight: 4,
    arbitrary: fc
      .tuple(guidArb, fc.integer({ min: 0, max: 7 }))
      .chain(([guid, t]) => valuesFor(t).map((values): UpdateBlock => ({ updateType: 0, guid, values }))),
  },
  { weight: 1, arbitrary: fc.tuple(guidArb, movementArb).map(([guid, movement]): UpdateBlock => ({ updateType: 1, guid, movement })) },
  { weight: 2, arbitrary: fc.array(guidArb, { maxLength: 4 }).map((guids): UpdateBlock => ({ updateType: 4, guids })) },
  { weight: 1, arbitrary: fc.array(guidArb, { maxLength: 3 }).map((guids): UpdateBlock => ({ updateType: 5, guids })) },
);

type Step = { kind: 'body'; body: UpdateBody } | { kind: 'destroy'; guid: bigint };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.array(blockArb, { minLength: 1, maxLength: 8 }).map((blocks): Step => ({ kind: 'body', body: { hasTransport: 0, blocks } })) },
  { weight: 1, arbitrary: guidArb.map((guid): Step => ({ kind: 'destroy', guid })) },
);

// ---------------------------------------------------------------------------
// the model

interface ModelObject {
  typeId: number;
  values: Uint32Array;
  createdBy: 2 | 3;
  movement: unknown;
  changed: number[];
}

/** Events in a comparable form. */
type Ev = [string, string, number, ...unknown[]];

const hex = (g: bigint) => `0x${g.toString(16).padStart(16, '0')}`;

function modelApply(m: Map<bigint, ModelObject>, step: Step, events: Ev[]): void {
  const remove = (g: bigint, reason: string, block: number) => {
    if (!m.has(g)) return;
    m.delete(g);
    events.push(['remove', hex(g), block, reason]);
  };
  if (step.kind === 'destroy') return remove(step.guid, 'destroy', -1);
  step.body.blocks.forEach((b, block) => {
    // the slots a values block sets, with their values, rising
    const writes = (v: { mask: Uint32Array; values: Uint32Array }) => {
      const out: Array<[number, number]> = [];
      let k = 0;
      for (let s = 0; s < 32 * v.mask.length; s++) if ((v.mask[s >>> 5]! >>> (s & 31)) & 1) out.push([s, v.values[k++]!]);
      return out;
    };
    const setValues = (g: bigint, o: ModelObject, v: { mask: Uint32Array; values: Uint32Array }) => {
      const w = writes(v);
      const inside = w.filter(([s]) => s < o.values.length);
      for (const [s, x] of inside) o.values[s] = x;
      if (inside.length < w.length) events.push(['problem', hex(g), block, 'dropped']);
      o.changed = inside.map(([s]) => s);
    };
    switch (b.updateType) {
      case 0:
      case 1: {
        const o = m.get(b.guid);
        if (o === undefined) {
          events.push(['problem', hex(b.guid), block, 'unknown']);
          return;
        }
        if (b.updateType === 0) {
          setValues(b.guid, o, b.values);
          events.push(['values', hex(b.guid), block, o.changed]);
        } else {
          o.movement = b.movement;
          o.changed = [];
          events.push(['movement', hex(b.guid), block]);
        }
        return;
      }
      case 2:
      case 3: {
        const replaced = m.has(b.guid);
        const t = OBJECT_TYPES[b.objectTypeId];
        if (t === undefined) events.push(['problem', hex(b.guid), block, 'type']);
        const o: ModelObject = {
          typeId: b.objectTypeId,
          values: new Uint32Array(t?.valuesCount ?? 0),
          createdBy: b.updateType,
          movement: b.movement,
          changed: [],
        };
        m.set(b.guid, o); // a replaced guid keeps its place in the order, as in a Map
        setValues(b.guid, o, b.values);
        events.push(['create', hex(b.guid), block, b.updateType, replaced]);
        return;
      }
      case 4:
        for (const g of b.guids) remove(g, 'outOfRange', block);
        return;
      case 5:
        events.push(['near', '', block, b.guids.map(hex)]);
        return;
    }
  });
}

function storeEvent(e: StoreEvent): Ev {
  switch (e.kind) {
    case 'create':
      return ['create', hex(e.guid), e.block, e.updateType, e.replaced];
    case 'values':
      return ['values', hex(e.guid), e.block, e.changed];
    case 'movement':
      return ['movement', hex(e.guid), e.block];
    case 'remove':
      return ['remove', hex(e.guid), e.block, e.reason];
    case 'near':
      return ['near', '', e.block, e.guids.map(hex)];
    case 'problem':
      return [
        'problem',
        hex(e.guid!),
        e.block,
        e.message.startsWith('unknown object type') ? 'type' : e.message.includes('unknown object') ? 'unknown' : 'dropped',
      ];
  }
}

function compare(store: ObjectStore, model: Map<bigint, ModelObject>, probes: bigint[]): void {
  assert.equal(store.size, model.size);
  assert.deepEqual([...store.objects.keys()], [...model.keys()]);
  assert.deepEqual([...store.entityIds()], [...model.keys()].map(hex));
  for (const [g, mo] of model) {
    const o = store.get(g);
    assert.ok(o !== undefined, hex(g));
    assert.equal(o.guid, g);
    assert.equal(o.typeId, mo.typeId);
    assert.equal(o.createdBy, mo.createdBy);
    assert.deepEqual(Array.from(o.values), Array.from(mo.values), hex(g));
    assert.deepEqual(o.changed, mo.changed);
    assert.deepEqual(o.movement, mo.movement);
    assert.equal(store.objects.get(g), o);
    assert.equal(store.objects.has(g), true);
  }
  for (const g of probes) if (!model.has(g)) assert.equal(store.get(g), undefined);
  assert.equal(store.valueBytes, 4 * [...model.values()].reduce((a, o) => a + o.values.length, 0));
}

test('property: the store after random creates, VALUES, MOVEMENT, out-of-range and destroy equals a plain model (decoded and hand-made blocks, guids above 2^53, shared low words)', () => {
  let steps = 0;
  let objects = 0;
  let bigGuids = 0;
  fc.assert(
    fc.property(fc.array(stepArb, { minLength: 5, maxLength: 30, size: 'max' }), fc.boolean(), (seq, decoded) => {
      const store = new ObjectStore();
      const model = new Map<bigint, ModelObject>();
      const probes: bigint[] = [];
      for (const step of seq) {
        const want: Ev[] = [];
        modelApply(model, step, want);
        let got: StoreEvent[];
        if (step.kind === 'destroy') {
          probes.push(step.guid);
          got = store.applyEvents({ opcode: SMSG_DESTROY_OBJECT, guid: step.guid });
        } else {
          for (const b of step.body.blocks) if ('guid' in b) probes.push(b.guid);
          // through the decoder (packed values in the shared pool, movement records) or as made
          got = store.applyBody(decoded ? decodeBody(encodeBody(step.body)) : step.body);
        }
        assert.deepEqual(got.map(storeEvent), want);
        compare(store, model, probes);
        steps++;
      }
      objects += model.size;
      for (const g of model.keys()) if (g > 2n ** 53n) bigGuids++;
    }),
    { numRuns: 100, seed: 1919 },
  );
  assert.ok(steps > 800 && objects > 300 && bigGuids > 150, `${steps} steps, ${objects} objects, ${bigGuids} above 2^53`);
});

// ---------------------------------------------------------------------------
// GuidMap as a Map

type Op = ['set', bigint, number] | ['delete', bigint] | ['clear'] | ['iterate', number] | ['step'];
const keyArb = fc.oneof(
  fc.bigInt({ min: 0n, max: 40n }),
  fc.bigInt({ min: 0n, max: 40n }).map((x) => (x << 32n) | 5n),
  fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
);
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.tuple(fc.constant('set' as const), keyArb, fc.integer()) },
  { weight: 5, arbitrary: fc.tuple(fc.constant('delete' as const), keyArb) },
  { weight: 1, arbitrary: fc.constant(['clear'] as Op) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('iterate' as const), fc.nat(50)) },
  { weight: 1, arbitrary: fc.constant(['step'] as Op) },
);

test('property: GuidMap behaves as a Map (order, get, has, delete, clear, iterators that live through rebuilds and deletes)', () => {
  let setsUnderIterator = 0;
  fc.assert(
    fc.property(fc.array(opArb, { minLength: 100, maxLength: 400 }), (ops) => {
      const g = new GuidMap<number>();
      const m = new Map<bigint, number>();
      // iterators started earlier, advanced one step per operation, compared with the Map's own
      const its: Array<[Iterator<[bigint, number]>, Iterator<[bigint, number]>]> = [];
      for (const op of ops) {
        if (op[0] === 'set') {
          assert.equal(g.set(op[1], op[2]), g);
          m.set(op[1], op[2]);
        } else if (op[0] === 'delete') assert.equal(g.delete(op[1]), m.delete(op[1]));
        else if (op[0] === 'clear') {
          g.clear();
          m.clear();
        }
        if (op[0] === 'step') for (const [a, b] of its) assert.deepEqual(a.next(), b.next());
        if (its.length > 0 && op[0] === 'set') setsUnderIterator++;
        assert.equal(g.size, m.size);
        if (op[0] !== 'iterate') continue;
        if (its.length === 6) its.shift();
        its.push([g.entries(), m.entries()]);
        assert.deepEqual([...g], [...m]);
        assert.deepEqual([...g.keys()], [...m.keys()]);
        assert.deepEqual([...g.values()], [...m.values()]);
        const seen: Array<[bigint, number]> = [];
        g.forEach((v, k, map) => {
          assert.equal(map, g);
          seen.push([k, v]);
        });
        assert.deepEqual(seen, [...m]);
        for (const k of [op[1] as unknown as bigint, 3n, 5n]) {
          assert.equal(g.get(k), m.get(k));
          assert.equal(g.has(k), m.has(k));
        }
      }
      for (const [a, b] of its)
        for (let r = b.next(), l = a.next(); ; r = b.next(), l = a.next()) {
          assert.deepEqual(l, r);
          if (r.done) break;
        }
    }),
    { numRuns: 300, seed: 19 },
  );
  assert.ok(setsUnderIterator > 100);
});

test('GuidMap: guids sharing their low 32 bits switch the table to hashing all 64 bits; lookups stay exact', () => {
  const g = new GuidMap<number>();
  const keys: bigint[] = [];
  for (let i = 0; i < 4 * LONG_CHAIN; i++) keys.push((BigInt(i + 1) << 32n) | 0x1234n);
  keys.forEach((k, i) => g.set(k, i));
  assert.equal(g.hashesAllBits, true);
  keys.forEach((k, i) => assert.equal(g.get(k), i));
  assert.equal(g.get(0x1234n), undefined);
  assert.deepEqual([...g.keys()], keys);
  // guids that differ in their low words keep the low-word hash
  const h = new GuidMap<number>();
  for (let i = 0; i < 5000; i++) h.set((0xf130n << 48n) | BigInt(i), i);
  assert.equal(h.hashesAllBits, false);
  assert.equal(h.size, 5000);
});

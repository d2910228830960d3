/** The observer's view of an object (producer.ts): every visible slot's value, zero elsewhere, for every type and visibility relation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { UpdateProducer, createBlockFor, observerView, passedFlags } from '../../src/protocols/wow/producer.js';
import { encodeBody } from '../../src/protocols/wow/index.js';
import { GuidMap } from '../../src/protocols/wow/guid-map.js';
import { objectType, slotVisibility } from '../../src/protocols/wow/fields.js';
import type { Observer, WorldObject } from '../../src/protocols/wow/index.js';

/** A type's values: xorshift32 from `seed`, 0 in the slots `zero` picks. */
function randomValues(typeId: number, seed: number, zero: (slot: number) => boolean): Uint32Array {
  const values = new Uint32Array(objectType(typeId)!.valuesCount);
  let x = seed | 1;
  for (let s = 0; s < values.length; s++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    values[s] = zero(s) ? 0 : x >>> 0;
  }
  return values;
}

test('property: observerView keeps exactly the slots the observer passes (self, owner, group, special info), for every type', () => {
  const seen = new Set<string>();
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 7 }),
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.record({ self: fc.boolean(), owner: fc.boolean(), group: fc.boolean(), special: fc.boolean() }),
      (typeId, seed, rel) => {
        const values = randomValues(typeId, seed, (s) => s % 3 === 0);
        const guid = 77n;
        const o: WorldObject = { guid, typeId, values, movement: { updateFlags: 0 } };
        if (rel.owner) o.owner = 5n;
        const p: Observer = { guid: rel.self ? guid : 5n, known: new Map() };
        if (rel.group) p.group = new Set([guid]);
        if (rel.special) p.specialInfo = new Set([guid]);
        const vis = slotVisibility(typeId)!;
        const f = passedFlags(o, p);
        seen.add(`${typeId}:${f}`);
        const want = new Uint32Array(values.length);
        for (let s = 0; s < values.length; s++) if ((vis[s]! & f) !== 0) want[s] = values[s]!;
        const got = observerView(o, p);
        assert.equal(got.constructor, Uint32Array);
        assert.deepStrictEqual(got, want);
        assert.notEqual(got.buffer, values.buffer);
      },
    ),
    { numRuns: 600 },
  );
  assert.ok(seen.size >= 30, `${seen.size} (type, visibility) pairs`);
});

test('property: produce makes a create and the view it keeps as observerView then createBlockFor do, for every type and visibility relation', () => {
  const seen = new Set<string>();
  const producer = new UpdateProducer({ compressThreshold: Infinity });
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 7 }),
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.record({ self: fc.boolean(), owner: fc.boolean(), group: fc.boolean(), special: fc.boolean(), sparse: fc.boolean(), transportGo: fc.boolean() }),
      (typeId, seed, rel) => {
        const values = randomValues(typeId, seed, (s) => s % (rel.sparse ? 7 : 3) !== 1);
        const guid = 0x1fc0n << 48n;
        const o: WorldObject = { guid: rel.transportGo ? guid | 77n : 77n, typeId, values, movement: { updateFlags: 0 } };
        if (rel.owner) o.owner = 5n;
        const p: Observer = { guid: rel.self ? o.guid : 5n, known: new Map() };
        if (rel.group) p.group = new Set([o.guid]);
        if (rel.special) p.specialInfo = new Set([o.guid]);
        seen.add(`${typeId}:${passedFlags(o, p)}`);
        const view = observerView(o, p);
        const want = createBlockFor(o, p, view);
        const got = producer.produce(p, [o]);
        assert.deepStrictEqual(p.known.get(o.guid), view);
        assert.equal(got.bodies[0]!.blocks.length, 1);
        const b = got.bodies[0]!.blocks[0]!;
        assert.ok(b.updateType === 2 && want.updateType === 2);
        assert.deepStrictEqual([...b.values.mask], [...want.values.mask]);
        assert.deepStrictEqual([...b.values.values], [...want.values.values]);
        assert.deepStrictEqual(got.bodyBytes[0], encodeBody({ hasTransport: 0, blocks: [want] }));
      },
    ),
    { numRuns: 400 },
  );
  assert.ok(seen.size >= 30, `${seen.size} (type, visibility) pairs`);
});

test('produce: guids that share their low 32 bits (the known table goes over to hashing all 64 bits while it is filled) are all known afterwards', () => {
  const producer = new UpdateProducer({ compressThreshold: Infinity });
  const p: Observer = { guid: 5n, known: new GuidMap<Uint32Array>() };
  // the same low word, 60 different high words: one chain in a table hashed from the low word
  const objs: WorldObject[] = Array.from({ length: 60 }, (_, i) => ({
    guid: (BigInt(i + 1) << 32n) | 0x1234n,
    typeId: 5,
    values: Uint32Array.from({ length: objectType(5)!.valuesCount }, (_, s) => (s === 8 ? i + 1 : 0)),
    movement: { updateFlags: 0 },
  }));
  const got = producer.produce(p, objs);
  assert.equal(got.created, 60);
  assert.equal((p.known as GuidMap<Uint32Array>).hashesAllBits, true);
  assert.equal(p.known.size, 60);
  for (const o of objs) assert.deepStrictEqual(p.known.get(o.guid), observerView(o, p), `guid ${o.guid.toString(16)}`);
  // a second tick: nothing changed, nothing sent, nothing forgotten
  const again = producer.produce(p, objs);
  assert.equal(again.created + again.updated + again.removed, 0);
  assert.equal(p.known.size, 60);
});

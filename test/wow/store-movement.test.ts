/**
 * The object store keeps a decoded movement block as a record in its value
 * slab (src/protocols/wow/move-record.ts) and gives it back on first use of
 * `movement`: the same keys in the same order, the same values, the same bits.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ObjectStore, PackedValues, decodeBody, encodeBody, type Movement, type UpdateBody } from '../../src/protocols/wow/index.js';
import { guidArb, movementArb, valuesArb } from './arbitraries.js';

/** Every key path of a value in order (key order included), with the type of each leaf. */
function shape(v: unknown, path = ''): string[] {
  if (v instanceof Float32Array) return [`${path}:Float32Array(${v.length})`];
  if (Array.isArray(v)) return [`${path}:array`, ...v.flatMap((x, i) => shape(x, `${path}[${i}]`))];
  if (v !== null && typeof v === 'object')
    return [`${path}:object`, ...Object.keys(v).flatMap((k) => shape((v as Record<string, unknown>)[k], `${path}.${k}`))];
  return [`${path}:${typeof v}`];
}

/** The movement's bytes on the wire (every float's bits, NaN payloads and spline nodes included). */
function wire(m: Movement): Uint8Array {
  return encodeBody({ hasTransport: 0, blocks: [{ updateType: 1, guid: 1n, movement: m }] });
}

test('property: a stored movement reads back as the decoder gave it (keys, order, values, bits), for every flag branch', () => {
  let records = 0;
  let branches = 0;
  fc.assert(
    fc.property(
      fc.array(fc.record({ guid: guidArb, typeId: fc.integer({ min: 0, max: 9 }), movement: movementArb, values: valuesArb }), { minLength: 1, maxLength: 6 }),
      (objs) => {
        const body: UpdateBody = {
          hasTransport: 0,
          blocks: objs.map((o) => ({ updateType: 2 as const, guid: o.guid, objectTypeId: o.typeId, movement: o.movement, values: o.values })),
        };
        const decoded = decodeBody(encodeBody(body));
        const store = new ObjectStore({ extraSlots: 'drop' });
        store.applyBody(decoded);
        // the last create of a guid wins
        const last = new Map<bigint, Movement>();
        for (const b of decoded.blocks) if (b.updateType === 2) last.set(b.guid, b.movement);
        for (const [g, want] of last) {
          const o = store.get(g)!;
          const got = o.movement;
          assert.deepStrictEqual(got, want);
          assert.deepStrictEqual(shape(got), shape(want));
          assert.deepStrictEqual(wire(got), wire(want));
          assert.equal(o.movement, got, 'made once, then the same object');
          if (o.type !== undefined && want.nanBits === undefined) {
            // the decoder's object is not what the store kept: it came back from the record
            assert.notEqual(got, want);
            records++;
            if (want.spline !== undefined || want.movementInfo?.transport !== undefined || want.victim !== undefined) branches++;
          }
        }
      },
    ),
    { numRuns: 300 },
  );
  assert.ok(records > 300, `${records} movements came back from a record`);
  assert.ok(branches > 50, `${branches} of them with a spline, a transport or a victim`);
});

test('store movement: kept values are the object store values; a changed movement stays changed; hand-made blocks keep their object', () => {
  const movement: Movement = {
    updateFlags: 0x70,
    movementInfo: { flags: 0, time: 5, x: 1.5, y: -2, z: 3, o: 0.25, fallTime: 0 },
    speeds: { walk: 2.5, run: 7, runBack: 4.5, swim: 4.75, swimBack: 2.5, turnRate: 3.25 },
    all: 1,
  };
  const values = PackedValues.of([0x7, 0, 0, 0, 0, 0], [11, 0, 9]);
  const body = decodeBody(encodeBody({ hasTransport: 0, blocks: [{ updateType: 2, guid: 11n, objectTypeId: 3, movement, values }] }));
  const store = new ObjectStore();
  store.applyBody(body);
  const o = store.get(11n)!;
  // the record sits after the values and the mask room: neither is touched
  assert.deepEqual([...o.values.subarray(0, 4)], [11, 0, 9, 0]);
  assert.deepEqual(o.changed, [0, 1, 2]);
  assert.deepStrictEqual(o.movement, movement);
  o.movement.movementInfo!.x = 8;
  assert.equal(o.movement.movementInfo!.x, 8);
  const replaced: Movement = { updateFlags: 0x10, all: 2 };
  o.movement = replaced;
  assert.equal(o.movement, replaced);
  // a block not from the decoder (plain mask and values arrays): its movement object is kept as given
  const own: Movement = { updateFlags: 0x50, position: { x: 0.1, y: 0.2, z: 0.3, o: 0 }, all: 1 };
  store.applyBody({
    hasTransport: 0,
    blocks: [{ updateType: 2, guid: 12n, objectTypeId: 5, movement: own, values: { mask: new Uint32Array([1]), values: new Uint32Array([12]) } }],
  });
  assert.equal(store.get(12n)!.movement, own);
});

/** The observer's view of an object (producer.ts): every visible slot's value, zero elsewhere, for every type and visibility relation. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { observerView, passedFlags } from '../../src/protocols/wow/producer.js';
import { objectType, slotVisibility } from '../../src/protocols/wow/fields.js';
import type { Observer, WorldObject } from '../../src/protocols/wow/index.js';

test('property: observerView keeps exactly the slots the observer passes (self, owner, group, special info), for every type', () => {
  const seen = new Set<string>();
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: 7 }),
      fc.integer({ min: 0, max: 0xffffffff }),
      fc.record({ self: fc.boolean(), owner: fc.boolean(), group: fc.boolean(), special: fc.boolean() }),
      (typeId, seed, rel) => {
        const n = objectType(typeId)!.valuesCount;
        const values = new Uint32Array(n);
        let x = seed | 1;
        for (let s = 0; s < n; s++) {
          x ^= x << 13;
          x ^= x >>> 17;
          x ^= x << 5;
          values[s] = s % 3 === 0 ? 0 : x >>> 0;
        }
        const guid = 77n;
        const o: WorldObject = { guid, typeId, values, movement: { updateFlags: 0 } };
        if (rel.owner) o.owner = 5n;
        const p: Observer = { guid: rel.self ? guid : 5n, known: new Map() };
        if (rel.group) p.group = new Set([guid]);
        if (rel.special) p.specialInfo = new Set([guid]);
        const vis = slotVisibility(typeId)!;
        const f = passedFlags(o, p);
        seen.add(`${typeId}:${f}`);
        const want = new Uint32Array(n);
        for (let s = 0; s < n; s++) if ((vis[s]! & f) !== 0) want[s] = values[s]!;
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

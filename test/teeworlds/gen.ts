import fc from 'fast-check';
import type { TwVersion } from '../../src/protocols/teeworlds/index.js';
import { STATIC_SIZES } from '../../src/protocols/teeworlds/index.js';

export type Items = { type: number; id: number; data: number[] }[];

const int32 = fc.integer({ min: -2147483648, max: 2147483647 });
/** Small values most of the time (like real items), full range sometimes (wrap-around). */
const value = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: -300, max: 300 }) }, { weight: 1, arbitrary: int32 });

/** Types present in a version: static ones, type 0 declarations, extended 0x4000..0x7fff, unknown ones. */
export function typeArb(version: TwVersion): fc.Arbitrary<number> {
  const n = STATIC_SIZES[version].length;
  return fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: 1, max: n - 1 }) },
    { weight: 1, arbitrary: fc.constant(0) },
    { weight: 2, arbitrary: fc.integer({ min: 0x7ff0, max: 0x7fff }) },
    { weight: 1, arbitrary: fc.integer({ min: n, max: 0x3fff }) },
  );
}

/** Size of an item of `type`: the static size, or 0..12 ints for types with a size int. */
export function sizeFor(version: TwVersion, type: number, free: number): number {
  const t = STATIC_SIZES[version];
  return type < t.length && t[type]! !== 0 ? t[type]! : free;
}

/** A random snapshot (unique keys) of a version. */
export function snapArb(version: TwVersion, maxItems = 40): fc.Arbitrary<Items> {
  return fc
    .uniqueArray(
      fc.tuple(typeArb(version), fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 12 }), fc.array(value, { minLength: 64, maxLength: 64 })),
      {
        maxLength: maxItems,
        selector: ([t, id]) => t * 65536 + id,
      },
    )
    .map((rows) => rows.map(([type, id, free, vals]) => ({ type, id, data: vals.slice(0, sizeFor(version, type, free)) })));
}

/**
 * A pair (from, to) where `to` is `from` with some items removed, some changed
 * (same size), some added: the shape of consecutive real snapshots.
 */
export function pairArb(version: TwVersion): fc.Arbitrary<[Items, Items]> {
  return fc
    .tuple(
      snapArb(version),
      snapArb(version, 15),
      fc.array(fc.tuple(fc.nat(), fc.nat(), value), { maxLength: 30 }),
      fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }),
    )
    .map(([from, extra, edits, keep]) => {
      const to: Items = [];
      const keys = new Set<number>();
      from.forEach((it, i) => {
        keys.add(it.type * 65536 + it.id); // a removed key is not re-added with another size in the same step
        if (keep[i] === false && i % 3 === 0) return; // removed
        to.push({ type: it.type, id: it.id, data: it.data.slice() });
      });
      for (const [i, k, v] of edits) {
        const it = to[i % Math.max(1, to.length)];
        if (it && it.data.length > 0) it.data[k % it.data.length] = v;
      }
      for (const it of extra) {
        const key = it.type * 65536 + it.id;
        if (!keys.has(key)) {
          keys.add(key);
          to.push(it);
        }
      }
      return [from, to];
    });
}

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TickLog } from '../../src/replication/client.js';

/**
 * A tick's undo log is kept in ascending order of id (a baseline's values are found in it by binary search and
 * forward cursors). Its entries come in runs (the updates applied while a packet is read, then what commit adds):
 * sorting merges two runs and sorts any other order by key; each entry's id, before, mask and place move together.
 */
test('property: TickLog.sort puts any order of distinct ids in ascending order, each entry whole (two runs merged, others sorted)', () => {
  let twoRuns = 0;
  let more = 0;
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 1, max: 0xffffffff }), { minLength: 0, maxLength: 300 }),
      fc.integer({ min: 0, max: 300 }),
      fc.boolean(),
      (ids, cut, shuffle) => {
        // two ascending runs cut at `cut`, or a shuffled order
        const sorted = [...ids].sort((a, b) => a - b);
        const c = Math.min(cut, sorted.length);
        const odd = sorted.filter((_, i) => i % 2 === 1);
        const order = shuffle ? [...ids] : [...sorted.filter((_, i) => i % 2 === 0 || i >= c), ...odd.filter((x) => sorted.indexOf(x) < c)];
        const log = new TickLog().reset(7);
        const marker = new Map<number, { id: number }>();
        order.forEach((id, k) => {
          const before = k % 3 === 0 ? null : undefined;
          log.add(id, before, (id ^ 0x5a5a) | 0, k % 5 === 0 ? -(k + 1) : k);
          marker.set(id, { id });
        });
        let runs = order.length > 0 ? 1 : 0;
        for (let k = 1; k < order.length; k++) if (order[k - 1]! > order[k]!) runs++;
        if (runs === 2) twoRuns++;
        else if (runs > 2) more++;
        const want = new Map(order.map((id, k) => [id, [k % 3 === 0 ? null : undefined, (id ^ 0x5a5a) | 0, k % 5 === 0 ? -(k + 1) : k] as const]));
        log.sort();
        assert.equal(log.n, order.length);
        assert.deepEqual(log.ids.slice(0, log.n), sorted);
        for (let k = 0; k < log.n; k++) {
          const [before, mask, at] = want.get(log.ids[k]!)!;
          assert.equal(log.before[k], before, `entry ${k}: before`);
          assert.equal(log.masks[k], mask, `entry ${k}: mask`);
          assert.equal(log.ats[k], at, `entry ${k}: place`);
          assert.equal(log.find(log.ids[k]!), k);
        }
      },
    ),
    { numRuns: 600, seed: 20261128 },
  );
  assert.ok(twoRuns > 50 && more > 50, `${twoRuns} logs of two runs, ${more} of more`);
});

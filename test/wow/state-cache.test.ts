/**
 * The wow adapter's `state()` rebuilds only the objects the last message created or
 * changed (the others' rows are kept from before). Checked against an object store fed
 * the same frames, read afresh at every message: whether `state()` is asked after every
 * message (the page, `stats`) or only now and then (the changes in between still count).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { wow } from '../../src/families/wow.js';
import { ObjectStore, decodePacket, typeIdFromGuid } from '../../src/protocols/wow/index.js';
import { synthSession } from '../wow-capture/synth.js';

const UPDATE = new Set([0x0a9, 0x0aa, 0x1f6]);

for (const every of [1, 7]) {
  test(`wow state(): the same rows as the object store read afresh (asked every ${every} message${every === 1 ? '' : 's'})`, () => {
    const s = synthSession({ seed: 21, ticks: 30, real: true });
    const frames = s.server.filter((f) => UPDATE.has(f[2]! | (f[3]! << 8)));
    assert.ok(frames.length > 100);
    const dec = wow.createDecoder({});
    const store = new ObjectStore();
    let checked = 0;
    let changedRows = 0;
    frames.forEach((f, i) => {
      dec.decode(f);
      store.apply(decodePacket(f, { typeOf: (g) => store.typeOf(g) ?? typeIdFromGuid(g) }));
      if (i % every !== 0) return;
      const got = dec.state!();
      const ids = [...store.entityIds()];
      assert.deepEqual(
        got.rows.map((r) => r.id),
        ids,
        `frame ${i}: ids`,
      );
      for (const r of got.rows) {
        const e = store.entity(r.id)!;
        assert.deepEqual({ type: r.type, fields: r.fields }, { type: e.type, fields: e.fields }, `frame ${i}: ${r.id}`);
        if (r.changed.length > 0) changedRows++;
      }
      checked++;
    });
    assert.ok(checked > 10 && changedRows > 50, `${checked} checks, ${changedRows} changed rows`);
  });
}

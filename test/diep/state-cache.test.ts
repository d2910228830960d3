/**
 * The diep adapter's `state()` reads only the entities the last message created or
 * changed (the others' rows are kept from before). Checked against an entity store fed
 * the same messages, read afresh: whether `state()` is asked after every message (the
 * page, `stats`) or only now and then (the changes in between still count).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { diep } from '../../src/families/diep.js';
import { DiepCaptureReader, EntityStore } from '../../src/protocols/diep/index.js';

/** The clientbound messages of the real ffa capture (a tank spawns, shapes come and go). */
function clientbound(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const it of new DiepCaptureReader({ decode: false }).pcap(new Uint8Array(readFileSync('test/fixtures/diep/pcap/ffa-dedicated-compressor.pcap'))))
    if (it.kind === 'message' && it.direction === 'clientbound') out.push(it.data);
  return out;
}

for (const every of [1, 7]) {
  test(`diep state(): the same rows as the entity store read afresh (asked every ${every} message${every === 1 ? '' : 's'})`, () => {
    const msgs = clientbound();
    assert.ok(msgs.length > 200);
    const dec = diep.createDecoder({ direction: 'clientbound' });
    const store = new EntityStore();
    let checked = 0;
    let changedRows = 0;
    let removed = 0;
    msgs.forEach((m, i) => {
      dec.decode(m);
      store.apply(m);
      if (i % every !== 0) return;
      const got = dec.state!();
      assert.deepEqual(
        got.rows.map((r) => r.id),
        store.entityIds(),
        `message ${i}: ids`,
      );
      for (const r of got.rows) {
        const e = store.entity(r.id)!;
        assert.deepEqual({ type: r.type, fields: r.fields }, { type: e.type, fields: e.fields }, `message ${i}: ${r.id}`);
        if (r.changed.length > 0 && !r.created) changedRows++;
      }
      removed += got.removed.length;
      checked++;
    });
    assert.ok(checked > 20 && changedRows > 100, `${checked} checks, ${changedRows} changed rows`);
    if (every === 1) assert.ok(removed > 0, 'entities removed along the way');
  });
}

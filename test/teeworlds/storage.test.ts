import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, SpanSink } from '../../src/core/index.js';
import { decodeSnapMessage, Snapshot, SnapshotStorage } from '../../src/protocols/teeworlds/index.js';
import { teeworlds } from '../../src/families/teeworlds.js';

test('storage by tick: get, purge before a tick, purge all but one, newest', () => {
  const st = new SnapshotStorage();
  const s = (v: number) => Snapshot.fromItems([{ type: 5, id: 0, data: [v, 0, 0] }]);
  for (const t of [10, 12, 14, 16]) st.set(t, s(t));
  assert.deepEqual(st.ticks(), [10, 12, 14, 16]);
  assert.equal(st.newest(), 16);
  st.purgeBefore(14);
  assert.deepEqual(st.ticks(), [14, 16]);
  assert.equal(st.get(14)!.crc(), 14);
  assert.equal(st.get(12), undefined);
  st.purgeAllBut(16);
  assert.deepEqual(st.ticks(), [16]);
  st.clear();
  assert.equal(st.size, 0);
  assert.equal(st.newest(), -1);
});

test('spans: every field of a snapshot message is located for the inspector', () => {
  const spans = new SpanSink();
  // §16.2 DDNet SNAPSINGLE
  const bytes = fromHex('0f860202ee8ecd041b000100090002' + '00'.repeat(21));
  decodeSnapMessage(bytes, 'ddnet', { spans });
  const byPath = new Map(spans.spans.map((s) => [s.path, [s.start, s.end]]));
  assert.deepEqual(byPath.get('msgId'), [0, 1]);
  assert.deepEqual(byPath.get('tick'), [1, 3]);
  assert.deepEqual(byPath.get('delta'), [3, 4]);
  assert.deepEqual(byPath.get('crc'), [4, 8]);
  assert.deepEqual(byPath.get('partSize'), [8, 9]);
  assert.deepEqual(byPath.get('data'), [9, 36]);
  // through the adapter too, with per-item byte ranges in the delta layer
  const dec = teeworlds.createDecoder({ version: 'ddnet' });
  const s2 = new SpanSink();
  // SNAPSINGLE tick 10, full, crc 1, 13 bytes: one GameInfo (type 6, id 1) with data [0 × 7, 1]
  const m = dec.decode(fromHex('0f0a0b010d' + '00010006010000000000000001'), s2);
  assert.ok(s2.spans.length >= 6);
  assert.equal(m.records.length, 1);
  assert.deepEqual(m.entities, [{ id: '6:1', start: 3, end: 13, layer: 'delta' }]);
});

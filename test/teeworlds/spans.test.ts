/**
 * Issue 15: the spans the adapter records match the records it prints. For
 * every bundled sample and every message: every leaf of the record that comes
 * from this message's bytes is linked (100 %), and no span names a path the
 * record does not have. Delta ints link to the item field they change, in the
 * `delta` layer (packed bytes) and the `ints` layer (decompressed ints).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex, SpanSink } from '../../src/core/index.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { spanCoverage, type AllowedGap } from '../helpers/span-coverage.js';

const ROOT = join(new URL('.', import.meta.url).pathname, '..', '..');

/** Leaves with no bytes of their own, by path pattern, and why. */
const ALWAYS: AllowedGap[] = [
  { pattern: /^status$/, reason: 'derived: the outcome of rebuilding the snapshot and checking its CRC' },
  { pattern: /^crcOk$/, reason: "derived: the rebuilt snapshot's CRC compared with `crc`" },
  { pattern: /^numItems$/, reason: 'derived: the number of items of the rebuilt snapshot' },
  { pattern: /^error$/, reason: 'derived: a description of why the snapshot was dropped' },
];

interface Rec {
  kind: string;
  items?: { type: number; id: number }[];
}

for (const sample of teeworlds.samples) {
  test(`spans cover every record leaf: sample ${sample.id}`, (t) => {
    const lines = readFileSync(join(ROOT, sample.path), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '' && !l.startsWith('#'));
    const dec = teeworlds.createDecoder({});
    let leaves = 0;
    let linked = 0;
    let allowed = 0;
    const per: string[] = [];
    lines.forEach((line, n) => {
      const sink = new SpanSink();
      const m = dec.decode(fromHex(line), sink);
      if (m.records.length === 0) {
        assert.equal(sink.spans.length, 0, `message ${n}: spans without a record`);
        return;
      }
      const rec = m.records[0] as Rec;
      // items this message's delta does not touch keep their base's values: their bytes are in an earlier message
      const touched = new Set((m.entities ?? []).map((e) => e.id));
      const carried = (rec.items ?? [])
        .map((it, i) => [i, `${it.type}:${it.id}`] as const)
        .filter(([, id]) => !touched.has(id))
        .map(([i]) => i);
      const allow: AllowedGap[] = [...ALWAYS];
      if (carried.length > 0)
        allow.push({ pattern: new RegExp(`^items\\[(${carried.join('|')})\\]\\.`), reason: 'carried over unchanged from the base snapshot' });
      if (rec.kind === 'snap_empty')
        allow.push({ pattern: /^(numDeleted|numUpdated|crc)$/, reason: 'SNAPEMPTY carries no delta and no CRC: these are 0 by definition' });
      const cov = spanCoverage(m.records, sink.spans, allow);
      assert.deepEqual(cov.orphans, [], `message ${n}: orphan spans`);
      assert.deepEqual(cov.unlinked, [], `message ${n}: unlinked leaves`);
      for (const s of sink.spans)
        if (s.layer !== undefined)
          assert.ok(m.layers?.[s.layer] !== undefined && s.end <= m.layers[s.layer]!.length, `message ${n}: span ${s.path} outside layer ${s.layer}`);
      leaves += cov.leaves;
      linked += cov.linked;
      allowed += cov.allowed;
      per.push(`#${n} ${cov.linked}/${cov.leaves}`);
    });
    t.diagnostic(`${sample.id}: ${linked}/${leaves} leaves linked (${allowed} allowed: derived or carried from the base); per message ${per.join(', ')}`);
    assert.equal(linked, leaves);
    assert.ok(leaves > 50);
  });
}

test('a delta int links to the item field it changes, in both the packed and the int layer', () => {
  const dec = teeworlds.createDecoder({ version: 'ddnet' });
  const sink = new SpanSink();
  // SNAPSINGLE tick 10, full, crc 1: one GameInfo (type 6, id 1) with data [0 × 7, 1]
  const m = dec.decode(fromHex('0f0a0b010d' + '00010006010000000000000001'), sink);
  const at = (path: string, layer: string) => sink.spans.find((s) => s.path === path && s.layer === layer);
  assert.deepEqual([at('items[0].fields.roundCurrent', 'delta')!.start, at('items[0].fields.roundCurrent', 'delta')!.end], [12, 13]);
  assert.deepEqual([at('items[0].data[7]', 'ints')!.start, at('items[0].data[7]', 'ints')!.end], [12 * 4, 13 * 4]);
  assert.deepEqual([at('numUpdated', 'delta')!.start, at('numUpdated', 'delta')!.end], [1, 2]);
  assert.deepEqual([at('items[0].typeName', 'delta')!.start, at('items[0].typeName', 'delta')!.end], [3, 5]);
  assert.equal(m.layers!.ints!.length, 13 * 4);
  assert.equal((m.records[0] as { version: string }).version, 'ddnet');
});

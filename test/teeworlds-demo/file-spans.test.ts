/**
 * The inspector's view of a Teeworlds capture or demo (`decodeFile` of the
 * teeworlds adapter): every message has its bytes, every span lies within its
 * buffer and names a node of its record, the fields that come from bytes are
 * linked, and the client state is there after every rebuilt snapshot. Counted
 * over a real 0.7.5 capture and the three real demos.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FAMILIES } from '../../src/families/registry.js';
import type { DecodedMessage } from '../../src/families/types.js';
import { jsonPaths, spanCoverage } from '../helpers/span-coverage.js';

const tw = FAMILIES.find((f) => f.name === 'teeworlds')!;
const FIX = new URL('../fixtures/teeworlds/demos/', import.meta.url);
type Rec = Record<string, unknown>;

function check(file: string): { messages: DecodedMessage[]; snapshots: number; linked: number; leaves: number } {
  const bytes = new Uint8Array(readFileSync(new URL(file, FIX)));
  const messages = [...tw.decodeFile!(bytes, {})!];
  let snapshots = 0;
  let linked = 0;
  let leaves = 0;
  messages.forEach((m, i) => {
    const where = `${file} message ${i}`;
    assert.ok(m.bytes !== undefined && m.bytes.length > 0, `${where}: bytes`);
    assert.ok(m.spans !== undefined && m.spans.length > 0, `${where}: spans`);
    for (const s of m.spans) {
      const buf = s.layer === undefined ? m.bytes : m.layers?.[s.layer];
      assert.ok(
        buf !== undefined && s.start >= 0 && s.start < s.end && s.end <= buf.length,
        `${where}: span ${s.path} ${s.start}..${s.end} in ${s.layer ?? 'the message'}`,
      );
    }
    const cov = spanCoverage(m.records, m.spans);
    assert.deepEqual(cov.orphans, [], `${where}: spans with no node`);
    linked += cov.linked;
    leaves += cov.leaves;
    const unlinked = new Set(cov.unlinked);
    const isLinked = (r: number, path: string) => !unlinked.has(`#${r} ${path}`);
    assert.ok(m.state !== undefined, `${where}: state`);
    m.records.forEach((raw, r) => {
      const rec = raw as Rec;
      const leavesOf = (prefix: RegExp) => jsonPaths(rec).leaves.filter((p) => prefix.test(p));
      if (rec.record === 'datagram' || rec.record === 'demo') {
        // every field read from bytes is linked (capture time, direction and endpoint come from the pcap record)
        const own = rec.record === 'datagram' ? /^(header|control|chunks)\b/ : /^(version|netVersion|mapName|mapSize|mapCrc|type|length|timestamp|markers)\b/;
        // (a control message's empty `extra` has no bytes)
        for (const p of leavesOf(own))
          if (!(p === 'control.extra' && it(rec.control as Rec).extra === '')) assert.ok(isLinked(r, p), `${where}: ${p} unlinked`);
      } else if (rec.record === 'message') {
        for (const p of ['system', 'id', 'hex']) assert.ok(isLinked(r, p), `${where}: message ${p} unlinked`);
      } else if (rec.record === 'snapshot') {
        snapshots++;
        const items = rec.items as Rec[];
        // the state after it: one row per item (its conversation's, for a capture)
        assert.equal(m.state!.rows.filter((x) => !x.id.includes(' ')).length, items.length, `${where}: state rows`);
        if (rec.kind === 'demo-snapshot') {
          // a whole snapshot: every item field is in the chunk
          for (const p of leavesOf(/^items\b/)) assert.ok(isLinked(r, p), `${where}: ${p} unlinked`);
        } else if (rec.kind === 'demo-delta') {
          // a demo's delta is against the snapshot before it (a capture's against an older one the
          // client acknowledged, so the state's changes need not be the delta's): every item it created has all its data linked, every changed field too
          const created = new Set(m.state!.rows.filter((x) => x.created).map((x) => x.id));
          items.forEach((it, k) => {
            if (!created.has(`${it.type}:${it.id}`)) return;
            (it.data as number[]).forEach((_, j) =>
              assert.ok(isLinked(r, `items[${k}].data[${j}]`), `${where}: items[${k}].data[${j}] of a new item unlinked`),
            );
          });
          for (const row of m.state!.rows) {
            const k = items.findIndex((it) => `${it.type}:${it.id}` === row.id);
            if (k < 0 || row.created || it(items[k]).fields === undefined) continue;
            for (const f of row.changed) {
              const paths = leavesOf(new RegExp(`^items\\[${k}\\]\\.fields\\.${f}\\b`));
              assert.ok(
                paths.some((p) => isLinked(r, p)),
                `${where}: changed items[${k}].fields.${f} unlinked`,
              );
            }
          }
        }
      }
    });
  });
  return { messages, snapshots, linked, leaves };
}
const it = (x: Rec | undefined) => x ?? {};

test('teeworlds capture (real 0.7.5 pcap): every datagram with bytes, linked fields and the state after each snapshot', () => {
  const r = check('tw075-client-record-dm1.pcap');
  assert.equal(r.messages.length, 912);
  assert.ok(r.snapshots > 600, `${r.snapshots} snapshots`);
  // the Huffman-compressed datagrams show their payload decompressed
  assert.ok(r.messages.some((m) => m.layers?.payload !== undefined));
  assert.ok(r.messages.some((m) => m.layers?.delta !== undefined && m.layers.ints !== undefined));
  process.stderr.write(`capture: ${r.linked} of ${r.leaves} leaves linked (the rest: capture metadata, items carried over from the base)\n`);
});

test('teeworlds capture (the bundled samples/teeworlds/tw075_session.pcap): the same', () => {
  const r = check('../../../../samples/teeworlds/tw075_session.pcap');
  assert.equal(r.messages.length, 155);
  assert.ok(r.snapshots > 40, `${r.snapshots} snapshots`);
  process.stderr.write(`tw075_session.pcap: ${r.linked} of ${r.leaves} leaves linked\n`);
});

for (const file of ['tw075-server-autorecord-dm1.demo', 'ddnet164-server-dm1.demo', 'tw075-client-record-dm1.demo']) {
  test(`teeworlds demo (${file}): every chunk with bytes, linked fields and the state after each snapshot`, () => {
    const r = check(file);
    assert.ok(r.snapshots >= 15, `${r.snapshots} snapshots`);
    // header first, then one message per chunk: a demo's messages tile the file from its first chunk on
    const bytes = readFileSync(new URL(file, FIX));
    assert.equal(r.messages.reduce((n, m) => n + m.bytes!.length, 0) <= bytes.length, true);
    process.stderr.write(`${file}: ${r.linked} of ${r.leaves} leaves linked\n`);
  });
}

/**
 * Issue 15: the spans the adapter records use the paths of the JSON records it prints.
 * For every bundled sample and every message (and every fixture packet, both
 * directions, and 0x02 wraps): every leaf linked, no orphan span.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { ByteWriter, SpanSink, encodeLz4Block, parseHexLines } from '../../src/core/index.js';
import { diep } from '../../src/families/diep.js';
import { encodeServerbound, F32Bits } from '../../src/protocols/diep/index.js';
import { spanCoverage, type AllowedGap } from '../helpers/span-coverage.js';
import { captureMessages, hex, vectors } from './helpers.js';

const root = new URL('../../', import.meta.url).pathname;

/** Leaves with no bytes of their own. */
const ALLOWED: AllowedGap[] = [
  { pattern: /^issues\[\d+\]$/, reason: 'store issues: what the client mirror noticed, derived from the whole stream, not from bytes of this message' },
  { pattern: /^issuesNotListed$/, reason: 'count of store issues past diepMaxIssuesKept (derived)' },
];

interface Totals {
  messages: number;
  leaves: number;
  linked: number;
  spans: number;
}

/** Decode a stream through the adapter with a sink per message; fail on any gap or orphan. */
function cover(messages: Uint8Array[], direction: 'clientbound' | 'serverbound', what: string): Totals {
  const dec = diep.createDecoder({ direction });
  const t: Totals = { messages: 0, leaves: 0, linked: 0, spans: 0 };
  messages.forEach((bytes, i) => {
    const sink = new SpanSink();
    const out = dec.decode(bytes, sink);
    const c = spanCoverage(out.records, sink.spans, ALLOWED);
    assert.deepEqual(c.unlinked, [], `${what} message ${i}: unlinked leaves`);
    assert.deepEqual(c.orphans, [], `${what} message ${i}: orphan spans`);
    assert.equal(c.linked, c.leaves);
    // every byte of the message (and of the lz4 layer) lies in a leaf-level span
    for (const layer of [undefined, 'lz4']) {
      const buf = layer === undefined ? bytes : out.layers?.lz4;
      if (buf === undefined) continue;
      const seen = new Uint8Array(buf.length);
      for (const s of sink.spans) if (s.layer === layer && s.kind !== 'struct') for (let k = s.start; k < s.end; k++) seen[k] = 1;
      assert.equal(seen.indexOf(0), -1, `${what} message ${i}: byte ${seen.indexOf(0)} of layer ${layer ?? 'outer'} in no span`);
    }
    t.messages++;
    t.leaves += c.leaves;
    t.linked += c.linked;
    t.spans += c.spans;
  });
  return t;
}

function wrap(inner: Uint8Array): Uint8Array {
  const block = encodeLz4Block(inner);
  const w = new ByteWriter(8 + block.length).u8(2).u32le(inner.length);
  w.bytes(block);
  return w.finish();
}

test('spans: every leaf of every message of every bundled Diep sample is linked, no orphan span', (t) => {
  assert.ok(diep.samples.length >= 1);
  // (the pcap sample is counted by test/diep-capture/spans.test.ts)
  for (const sample of diep.samples.filter((x) => x.format !== 'pcap')) {
    assert.equal(sample.format, 'hex-lines');
    const messages = parseHexLines(readFileSync(root + sample.path, 'utf8'));
    const c = cover(messages, 'clientbound', sample.id);
    assert.equal(c.messages, messages.length);
    assert.ok(c.leaves > 1000, `${c.leaves} leaves`);
    t.diagnostic(`sample ${sample.id}: ${c.messages} messages, ${c.linked}/${c.leaves} leaves linked, ${c.spans} spans, 0 orphans`);
  }
  // the capture's message 5 (the example: 1 of 398 leaves before)
  const m5 = captureMessages()[5]!.bytes;
  const sink = new SpanSink();
  const dec = diep.createDecoder({ direction: 'clientbound' });
  for (let i = 0; i < 5; i++) dec.decode(captureMessages()[i]!.bytes);
  const c5 = spanCoverage(dec.decode(m5, sink).records, sink.spans, ALLOWED);
  t.diagnostic(`capture message 5: ${c5.linked}/${c5.leaves} leaves linked, ${c5.orphans.length} orphans`);
  assert.equal(c5.linked, c5.leaves);
});

test('spans: fixture packets (updates with arrays and interleaved order, other clientbound, serverbound) and 0x02 wraps', (t) => {
  const updates = vectors.updatePackets.map((v) => hex(v.hex));
  const cb = vectors.otherPackets.filter((v) => v.direction === 'clientbound').map((v) => hex(v.hex));
  const sb = vectors.otherPackets.filter((v) => v.direction === 'serverbound').map((v) => hex(v.hex));
  sb.push(encodeServerbound({ type: 'Input', flags: 1 | 4 | 256, mouseX: new F32Bits(0x7f9f0000), mouseY: 0.72 }));
  sb.push(encodeServerbound({ type: 'Command', command: 'give', args: ['a', 'bc'] }));
  sb.push(encodeServerbound({ type: 'Unknown', header: 0x33, body: hex('0102') }));
  // an interleaved packet (update after a creation): the `upcreates` form
  const interleaved = hex('00070002010101010102000101');
  const all: [string, Uint8Array[], 'clientbound' | 'serverbound'][] = [
    ['update vectors', updates, 'clientbound'],
    ['update vectors in 0x02', updates.map(wrap), 'clientbound'],
    ['other clientbound', cb, 'clientbound'],
    ['serverbound', sb, 'serverbound'],
    ['interleaved', [interleaved, wrap(interleaved)], 'clientbound'],
  ];
  for (const [name, msgs, dir] of all) {
    const c = cover(msgs, dir, name);
    t.diagnostic(`${name}: ${c.messages} messages, ${c.linked}/${c.leaves} leaves linked`);
  }
});

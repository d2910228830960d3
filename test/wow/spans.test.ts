/**
 * Issue 15: every span the WoW adapter records names a node of the JSON
 * record it prints (no orphans), and every leaf of that record that comes
 * from bytes has a span (100 %, with the derived values listed below), for
 * every bundled sample and every message, in frame and body mode.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseHexLines, toHex } from '../../src/core/hex.js';
import { SpanSink } from '../../src/core/spans.js';
import { wow } from '../../src/families/wow.js';
import { spanCoverage, type AllowedGap } from '../helpers/span-coverage.js';
import { decodePacketDetailed, floatToJson } from '../../src/protocols/wow/index.js';
import { loadFixtures } from './helpers.js';

const ROOT = join(new URL('.', import.meta.url).pathname, '..', '..');

/** Leaves with no bytes of their own, and why. */
const ALLOWED: AllowedGap[] = [
  { pattern: /^compression$/, reason: 'null for SMSG_UPDATE_OBJECT: "not compressed" follows from frame.opcode' },
  { pattern: /^frame\.opcodeName$/, reason: 'derived: the name of frame.opcode' },
  { pattern: /^frame\.payloadLength$/, reason: 'derived: frame.size - 2' },
  { pattern: /^compression\.zlibLength$/, reason: 'derived: the length of compression.zlib' },
  { pattern: /(^|\.)length$/, reason: 'derived: the length of the body buffer (frame size, or the inflated size)' },
  { pattern: /\.updateTypeName$/, reason: 'derived: the name of updateType' },
  { pattern: /\.objectTypeName$/, reason: 'derived: the name of objectTypeId' },
  { pattern: /\.values\.fields\[\d+\]\.(index|field|offset|type)$/, reason: "derived: the slot's index (from the mask) and its field-table entry" },
  { pattern: /(updateFlagNames|\.flagNames)\[\d+\]$/, reason: 'derived: the named breakdown of the flag word next to it' },
  { pattern: /^problems\[\d+\]$/, reason: 'annotation: what the object store reported' },
  { pattern: /(^|\.)nonCanonical$/, reason: 'annotation: the decoder saw a non-canonical packed guid' },
];

/** Leaf path → value of a JSON record (iterative). */
function leafValues(rec: unknown): Map<string, unknown> {
  const out = new Map<string, unknown>();
  const stack: Array<[string, unknown]> = [['', rec]];
  while (stack.length > 0) {
    const [p, v] = stack.pop()!;
    if (Array.isArray(v)) v.forEach((x, i) => stack.push([`${p}[${i}]`, x]));
    else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) stack.push([p === '' ? k : `${p}.${k}`, x]);
    else out.set(p, v);
  }
  return out;
}

/** The value of a span's bytes by its kind, as the JSON prints it (undefined for kinds not compared). */
function readAs(kind: string, b: Uint8Array): unknown {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  switch (kind) {
    case 'u8':
      return b[0];
    case 'u16le':
      return v.getUint16(0, true);
    case 'u16be':
      return v.getUint16(0, false);
    case 'bytes':
    case 'zlib':
      return toHex(b);
    case 'u32le':
      return v.getUint32(0, true);
    case 'u32be':
      return v.getUint32(0, false);
    case 'u64le':
      return v.getBigUint64(0, true);
    case 'f32le':
      return floatToJson(v.getFloat32(0, true), v.getUint32(0, true));
    default:
      return undefined;
  }
}

/** Numbers, `0x` hex strings and bigints compared as integers; other values as they are. */
function normal(x: unknown): unknown {
  if (typeof x === 'bigint') return x.toString();
  if (typeof x === 'string' && /^0x[0-9a-f]+$/i.test(x)) return BigInt(x).toString();
  if (typeof x === 'number' && Number.isInteger(x)) return String(x);
  return x;
}

interface Count {
  checked: number;
  leaves: number;
  linked: number;
  allowed: number;
  spans: number;
}

function check(name: string, messages: Uint8Array[], body: boolean): Count {
  const dec = wow.createDecoder({ body });
  const total: Count = { checked: 0, leaves: 0, linked: 0, allowed: 0, spans: 0 };
  messages.forEach((bytes, i) => {
    const sink = new SpanSink();
    const m = dec.decode(bytes, sink);
    const records = JSON.parse(JSON.stringify(m.records));
    const c = spanCoverage(records, sink.spans, ALLOWED);
    assert.deepEqual(c.orphans, [], `${name} message ${i + 1}: spans naming no node of the record`);
    assert.deepEqual(c.unlinked, [], `${name} message ${i + 1}: leaves without bytes`);
    // every span lies inside its buffer, and a leaf's bytes read back to the value the record prints
    const leaves = leafValues(records[0]);
    for (const s of sink.spans) {
      const buf = s.layer === undefined ? bytes : m.layers?.[s.layer];
      assert.ok(
        buf !== undefined && s.start >= 0 && s.start <= s.end && s.end <= buf.length,
        `${name} message ${i + 1}: ${s.path} [${s.start}, ${s.end}) in layer ${s.layer}`,
      );
      if (!leaves.has(s.path)) continue;
      const got = readAs(s.kind, buf.subarray(s.start, s.end));
      if (got !== undefined) {
        assert.equal(normal(got), normal(leaves.get(s.path)), `${name} message ${i + 1}: ${s.path} (${s.kind})`);
        total.checked++;
      }
    }
    total.leaves += c.leaves;
    total.linked += c.linked;
    total.allowed += c.allowed;
    total.spans += c.spans;
  });
  return total;
}

const sample = wow.samples[0]!;
const frames = parseHexLines(readFileSync(join(ROOT, sample.path), 'utf8'));

test(`sample ${sample.id}: every leaf linked, no orphan span, every message`, (t) => {
  assert.ok(frames.length >= 8);
  const c = check(sample.id, frames, false);
  assert.equal(c.linked, c.leaves);
  assert.ok(c.leaves > 500, `${c.leaves} leaves`);
  t.diagnostic(
    `wow ${sample.id}: ${frames.length} messages, ${c.linked}/${c.leaves} leaves linked (${c.allowed} derived leaves allowed), ${c.spans} spans, 0 orphans, ${c.checked} leaf spans read back to the printed value`,
  );
});

test(`sample ${sample.id} in --body mode (the update bodies alone): every leaf linked, no orphan span`, (t) => {
  const bodies = frames
    .map((f) => decodePacketDetailed(f))
    .filter((d) => d.body !== undefined)
    .map((d) => d.body!.slice());
  const c = check(`${sample.id} --body`, bodies, true);
  assert.equal(c.linked, c.leaves);
  t.diagnostic(`wow ${sample.id} --body: ${bodies.length} bodies, ${c.linked}/${c.leaves} leaves linked (${c.allowed} allowed)`);
});

test('the fixtures, and frames with every movement part and typed value, are linked to 100 %', async (t) => {
  const fx = loadFixtures();
  const c1 = check(
    'fixtures',
    fx.map((f) => f.full),
    false,
  );
  assert.equal(c1.linked, c1.leaves);
  // generated bodies: splines (all facings), transports, jumps, guid lists, typed values of every kind
  const fc = (await import('fast-check')).default;
  const { bodyArb } = await import('./arbitraries.js');
  const { encodeUpdatePacket } = await import('../../src/protocols/wow/index.js');
  const bodies = fc.sample(bodyArb, { numRuns: 120, seed: 15 });
  const pkts = bodies.map((b) => encodeUpdatePacket(b, { compressThreshold: 200 })).filter((p) => p.length < 65000);
  const c2 = check('generated', pkts, false);
  assert.equal(c2.linked, c2.leaves);
  assert.ok(c2.checked > 1000);
  t.diagnostic(`fixtures: ${c1.linked}/${c1.leaves}; generated frames: ${c2.linked}/${c2.leaves} over ${pkts.length} frames`);
});

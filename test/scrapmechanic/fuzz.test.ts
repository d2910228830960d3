/**
 * Totality: random, mutated and truncated bytes give a value or a DecodeError, never
 * another exception, and anything the lenient decoder accepts re-encodes to the same
 * bytes. Case counts add up to well over 100k (see the `numRuns` and loops below).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { SpanSink } from '../../src/core/spans.js';
import {
  ScrapMechanicSession,
  decodeBody,
  decodeMessage,
  encodeBody,
  encodeMessage,
  literalLz4Block,
  readMessage,
  scanBody,
  toJson,
} from '../../src/protocols/scrapmechanic/index.js';
import { updateSequence } from './arbitraries.js';
import { decodeBody as oracleDecodeBody } from './oracle/decode.js';

const vectors: Array<{ body_hex: string; wire_packet_lz4_hex: string; wire_packet_lz4_literal_only_hex: string }> = JSON.parse(
  readFileSync(new URL('../fixtures/scrapmechanic/network_update_vectors.json', import.meta.url), 'utf8'),
);
const bodies = vectors.map((v) => fromHex(v.body_hex));
const messages = vectors.flatMap((v) => [fromHex(v.wire_packet_lz4_hex), fromHex(v.wire_packet_lz4_literal_only_hex)]);

let cases = 0;

/** Decode a body; on success the value must re-encode to the same bytes (also via JSON). */
function checkBody(b: Uint8Array, strict = false, spans?: SpanSink): void {
  cases++;
  // the one decode path must agree with the oracle (the hand-written eager decoder of before)
  let oracleErr: unknown;
  let oracle: ReturnType<typeof oracleDecodeBody> | undefined;
  try {
    oracle = oracleDecodeBody(b, { strict });
  } catch (e) {
    oracleErr = e;
  }
  // the scanner must agree with the decoder: same error, or the same updates
  let scanErr: unknown;
  let scanned: ReturnType<typeof scanBody> | undefined;
  try {
    scanned = scanBody(b, { strict });
  } catch (e) {
    scanErr = e;
  }
  let d: ReturnType<typeof decodeBody>;
  const ranges: number[] = [];
  try {
    d = decodeBody(b, { strict, spans, ranges });
  } catch (e) {
    if (e instanceof DecodeError) {
      assert.ok(e.offset >= 0 && e.offset <= b.length, `offset ${e.offset} within ${b.length}`);
      assert.equal(typeof e.path, 'string');
      assert.ok(scanErr instanceof DecodeError, `scanner accepted what the decoder refused: ${e.message}`);
      assert.equal(scanErr.message, e.message);
      assert.ok(oracleErr instanceof DecodeError, `oracle accepted what the decoder refused: ${e.message}`);
      assert.equal(e.message, oracleErr.message);
      assert.equal(e.offset, oracleErr.offset);
      return;
    }
    throw e;
  }
  assert.equal(scanErr, undefined, `scanner refused what the decoder accepted: ${String(scanErr)}`);
  assert.equal(oracleErr, undefined, `oracle refused what the decoder accepted: ${String(oracleErr)}`);
  assert.deepEqual(toJson(d.updates), toJson(oracle!.updates));
  assert.deepEqual(toJson(scanned!.updates()), toJson(d.updates));
  assert.equal(scanned!.tick, d.tick);
  // and its index: where each sub-update sits, its size, form and warnings
  for (let i = 0; i < scanned!.count; i++) {
    const u = d.updates[i]!;
    assert.deepEqual([scanned!.wireStart(i), scanned!.wireEnd(i)], [ranges[2 * i], ranges[2 * i + 1]]);
    assert.equal(scanned!.size(i), u.size);
    assert.equal(scanned!.form(i), u.form);
    assert.equal(scanned!.hasWarnings(i), (u.warnings?.length ?? 0) > 0);
  }
  assert.equal(toHex(encodeBody(d)), toHex(b));
  assert.equal(toHex(encodeBody(JSON.parse(JSON.stringify(toJson(d))))), toHex(b));
}

function checkMessage(m: Uint8Array, strict = false): void {
  cases++;
  let r: ReturnType<typeof readMessage>;
  try {
    r = readMessage(m, { strict });
  } catch (e) {
    if (e instanceof DecodeError) return;
    throw e;
  }
  // the payload re-encodes exactly; the whole message (literal-only LZ4) decodes back to the same value
  const again = encodeMessage(JSON.parse(JSON.stringify(toJson(r.packet))), { lz4: 'literal' });
  assert.deepEqual(toJson(decodeMessage(again)), toJson(r.packet));
}

/** Mutations: overwrite, insert, delete, truncate. */
const mutation = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('set' as const), at: fc.nat(), v: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bit: fc.integer({ min: 0, max: 7 }) }),
    fc.record({ kind: fc.constant('ins' as const), at: fc.nat(), v: fc.integer({ min: 0, max: 255 }) }),
    fc.record({ kind: fc.constant('del' as const), at: fc.nat() }),
    fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }),
  ),
  { minLength: 1, maxLength: 4 },
);

function mutate(src: Uint8Array, ms: Array<{ kind: string; at: number; v?: number; bit?: number }>): Uint8Array {
  let a = Array.from(src);
  for (const m of ms) {
    const at = a.length === 0 ? 0 : m.at % (a.length + (m.kind === 'ins' ? 1 : 0));
    if (m.kind === 'set' && a.length > 0) a[at] = m.v!;
    else if (m.kind === 'flip' && a.length > 0) a[at] = a[at]! ^ (1 << m.bit!);
    else if (m.kind === 'ins') a.splice(at, 0, m.v!);
    else if (m.kind === 'del') a.splice(at, 1);
    else if (m.kind === 'cut') a = a.slice(0, at);
  }
  return Uint8Array.from(a);
}

test('fuzz: random bytes as a body (lenient and strict) — 40k cases', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 160 }), fc.boolean(), (b, strict) => checkBody(b, strict)),
    { numRuns: 30000 },
  );
  // bodies that start with a tick and a plausible RawUpdate size, so parsing gets deeper
  fc.assert(
    fc.property(fc.integer({ min: 2, max: 90 }), fc.uint8Array({ minLength: 0, maxLength: 120 }), fc.boolean(), (size, rest, strict) => {
      const b = new Uint8Array(6 + rest.length);
      b[4] = size >> 8;
      b[5] = size & 255;
      b.set(rest, 6);
      checkBody(b, strict);
    }),
    { numRuns: 10000 },
  );
});

test('fuzz: mutated fixture bodies and mutated generated bodies — 45k cases', () => {
  fc.assert(
    fc.property(fc.constantFrom(...bodies), mutation, fc.boolean(), (b, ms, strict) => checkBody(mutate(b, ms), strict)),
    { numRuns: 30000 },
  );
  // a pool of valid bodies with every layout and many deltas, mutated
  const pool = fc.sample(updateSequence, { numRuns: 400, seed: 42 }).map((updates) => encodeBody({ tick: 1, updates }, 'auto'));
  fc.assert(
    fc.property(fc.constantFrom(...pool), mutation, fc.boolean(), (b, ms, strict) => checkBody(mutate(b, ms), strict)),
    { numRuns: 15000 },
  );
});

test('fuzz: every truncation of every fixture body and message; spans recorded on the way', () => {
  for (const b of bodies) for (let n = 0; n <= b.length; n++) checkBody(b.subarray(0, n), false, new SpanSink());
  for (const m of messages) for (let n = 0; n <= m.length; n++) checkMessage(m.subarray(0, n));
});

test('fuzz: random and mutated messages (LZ4 layer, 0x1D compound) — 30k cases', () => {
  const ids = [0x15, 0x16, 0x1d, 0x18, 0x02, 0x01, 0x99];
  fc.assert(
    fc.property(fc.constantFrom(...ids), fc.uint8Array({ maxLength: 120 }), fc.boolean(), (id, rest, strict) => {
      const m = new Uint8Array(1 + rest.length);
      m[0] = id;
      m.set(rest, 1);
      checkMessage(m, strict);
    }),
    { numRuns: 10000 },
  );
  fc.assert(
    fc.property(fc.constantFrom(...messages), mutation, (m, ms) => checkMessage(mutate(m, ms))),
    { numRuns: 10000 },
  );
  // 0x1D payloads built from random (often malformed) sub-packets, stored literally so the compound layer is reached
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.constantFrom(0x16, 0x15, 0x1d, 0x18), fc.oneof(fc.constantFrom(...bodies), fc.uint8Array({ maxLength: 30 }))), { maxLength: 4 }),
      fc.uint8Array({ maxLength: 4 }),
      (subs, tail) => {
        const parts: number[] = [];
        for (const [id, data] of subs) {
          const size = data.length + 1;
          parts.push(size >>> 24, (size >>> 16) & 255, (size >>> 8) & 255, size & 255, id, ...data);
        }
        parts.push(...tail);
        const payload = Uint8Array.from(parts);
        const block = literalLz4Block(payload);
        const m = new Uint8Array(1 + block.length);
        m[0] = 0x1d;
        m.set(block, 1);
        checkMessage(m);
      },
    ),
    { numRuns: 10000 },
  );
});

test('fuzz: a session survives garbage between valid messages and rolls back failed ones', () => {
  const s = new ScrapMechanicSession();
  fc.assert(
    fc.property(
      fc.oneof(
        fc.constantFrom(...messages),
        fc.uint8Array({ maxLength: 60 }).map((r) => Uint8Array.from([0x16, ...r])),
      ),
      (m) => {
        cases++;
        const before = s.controllers.entries();
        try {
          s.decodeMessage(m);
        } catch (e) {
          if (!(e instanceof DecodeError)) throw e;
          assert.deepEqual(s.controllers.entries(), before);
        }
      },
    ),
    { numRuns: 5000 },
  );
});

test('an LZ4 block that would inflate past the 0x80000 cap is refused', () => {
  // 1 literal, then a match of offset 1 repeating it 0x80000 times
  const extra = 0x80000 - 4 - 15;
  const len: number[] = [];
  let r = extra;
  while (r >= 255) {
    len.push(255);
    r -= 255;
  }
  len.push(r);
  const block = Uint8Array.from([0x1f, 0x41, 0x01, 0x00, ...len, 0x00]);
  const msg = Uint8Array.from([0x16, ...block]);
  assert.throws(
    () => decodeMessage(msg),
    (e: unknown) => e instanceof LimitError && e.limit === 'maxLz4Output',
  );
  // a smaller cap via limits
  const small = Uint8Array.from([0x16, 0x1f, 0x41, 0x01, 0x00, 0xff, 0x00, 0x00]);
  assert.throws(() => decodeMessage(small, { limits: { maxLz4Output: 100 } }), LimitError);
  // within the default cap the block inflates (275 bytes of 0x41) and the body is what is wrong
  assert.throws(
    () => decodeMessage(small),
    (e: unknown) => e instanceof DecodeError && !(e instanceof LimitError) && /RAW_SIZE_INVALID/.test(e.message),
  );
});

test('fuzz case count is at least 100k', () => {
  assert.ok(cases >= 100_000, `only ${cases} cases`);
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError, SpanSink, encodeLz4Block } from '../../src/core/index.js';
import { oracleDecodeUpdate } from './oracle/update-objects.js';
import {
  EntityStore,
  UpdateBuffer,
  decodeUpdateInto,
  decodeUpdate,
  type UpdatePacket,
  clientboundFromJson,
  clientboundToJson,
  decodeClientbound,
  decodeServerbound,
  encodeClientbound,
  type ClientboundPacket,
} from '../../src/protocols/diep/index.js';
import { captureMessages, hex, vectors, warmUp } from './helpers.js';

// exact re-encoding is checked against optimised code (issue 14)
await warmUp();

const seeds: Uint8Array[] = [
  ...captureMessages().map((m) => m.bytes),
  ...vectors.updatePackets.map((v) => hex(v.hex)),
  ...vectors.otherPackets.map((v) => hex(v.hex)),
];
const compressed = seeds.slice(3, 8).map((b) => {
  const block = encodeLz4Block(b);
  const out = new Uint8Array(5 + block.length);
  out[0] = 2;
  new DataView(out.buffer).setUint32(1, b.length, true);
  out.set(block, 5);
  return out;
});
const all = [...seeds, ...compressed];

const buf = new UpdateBuffer();

/**
 * The one reader agrees with the oracle (the former object reader, test/diep/oracle) on
 * 0x00 packets: same packet, or the same error place. Also with spans recorded.
 */
function checkFlat(bytes: Uint8Array, objectError: DecodeError | undefined): void {
  if (bytes.length === 0 || bytes[0] !== 0) return;
  let oracleError: unknown;
  let oracle: UpdatePacket | undefined;
  try {
    oracle = oracleDecodeUpdate(bytes);
  } catch (e) {
    oracleError = e;
  }
  let flatError: unknown;
  try {
    decodeUpdateInto(bytes, buf, { spans: new SpanSink() });
  } catch (e) {
    flatError = e;
  }
  if (objectError === undefined) {
    assert.equal(oracleError, undefined);
    assert.equal(flatError, undefined);
    assert.deepEqual(decodeUpdate(bytes), oracle);
  } else {
    for (const e of [oracleError, flatError]) {
      assert.ok(e instanceof DecodeError, String(e));
      assert.equal(e.offset, objectError.offset);
      assert.equal(e.path, objectError.path);
    }
  }
}

/** Decode; only a value or a DecodeError may come out. A value must re-encode to the same bytes. */
function check(bytes: Uint8Array): void {
  let p: ClientboundPacket;
  try {
    p = decodeClientbound(bytes);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    assert.ok(Number.isInteger(e.offset) && e.offset >= 0);
    checkFlat(bytes, e);
    return;
  }
  checkFlat(bytes, undefined);
  // whatever decodes is canonical: it re-encodes to the input (0x02 keeps its block)
  assert.deepEqual(encodeClientbound(p), bytes);
  assert.deepEqual(encodeClientbound(clientboundFromJson(JSON.parse(JSON.stringify(clientboundToJson(p))))), bytes);
  if (p.type === 'Update') new EntityStore().applyPacket(p); // never throws
}

function checkServerbound(bytes: Uint8Array): void {
  try {
    decodeServerbound(bytes);
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
  }
}

test('fuzz: random bytes give a packet or a DecodeError (both directions)', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 11 }), (b, header) => {
      check(b);
      checkServerbound(b);
      if (b.length > 0) {
        const c = b.slice();
        c[0] = header; // every known header, so the body decoders get random input
        check(c);
        checkServerbound(c);
      }
    }),
    { numRuns: 4000 },
  );
});

test('fuzz: mutated fixture packets (byte flips, inserts, deletes) give a packet or a DecodeError', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 0, max: all.length - 1 }),
      fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 }), fc.integer({ min: 0, max: 2 })), { minLength: 1, maxLength: 6 }),
      (i, muts) => {
        const b = Array.from(all[i]!);
        for (const [pos, val, kind] of muts) {
          const at = b.length === 0 ? 0 : pos % b.length;
          if (kind === 0 && b.length > 0) b[at] = val;
          else if (kind === 1) b.splice(at, 0, val);
          else b.splice(at, 1);
        }
        const bytes = new Uint8Array(b);
        check(bytes);
        checkServerbound(bytes);
      },
    ),
    { numRuns: 3000 },
  );
});

test('fuzz: every truncation of every fixture packet is a DecodeError or a shorter valid packet', () => {
  let errors = 0;
  for (const b of all) {
    for (let n = 0; n < b.length; n++) {
      const t = b.subarray(0, n);
      try {
        decodeClientbound(t);
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
        errors++;
      }
    }
  }
  assert.ok(errors > 10000);
});

test('fuzz: decoding stays bounded on hostile counts and long strings', () => {
  // huge counts with few bytes are rejected before allocating
  for (const h of ['00ffffffff0f', '0000ffffffff0f', '00000100ffffffff0f', '02ffffffff00']) {
    assert.throws(() => decodeClientbound(hex(h)), DecodeError);
  }
  const long = new Uint8Array(70000).fill(0x61);
  long[0] = 0x04;
  assert.throws(() => decodeClientbound(long), DecodeError);
});

test('fuzz: the JSON encoder gives bytes or an EncodeError for any JSON, and for mutated decoded forms', async () => {
  const { EncodeError } = await import('../../src/core/index.js');
  const { encodeServerbound, serverboundFromJson } = await import('../../src/protocols/diep/index.js');
  const encodeAny = (v: unknown): void => {
    for (const fn of [() => encodeClientbound(clientboundFromJson(v)), () => encodeServerbound(serverboundFromJson(v))]) {
      try {
        fn();
      } catch (e) {
        if (!(e instanceof EncodeError)) throw e;
      }
    }
  };
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 4 }), encodeAny), { numRuns: 1500 });
  const forms = all.slice(0, 12).map((b) => clientboundToJson(decodeClientbound(b)));
  const junk = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.constant(undefined),
    fc.constant(-1),
    fc.constant(2 ** 32),
    fc.constant(1.5),
    fc.constant('f32:0xzz'),
  );
  fc.assert(
    fc.property(fc.integer({ min: 0, max: forms.length - 1 }), fc.array(fc.tuple(fc.nat(), junk), { minLength: 1, maxLength: 3 }), (i, edits) => {
      const v = JSON.parse(JSON.stringify(forms[i]));
      for (const [n, x] of edits) {
        // walk to a random node and replace one of its members
        let node: unknown = v;
        let k = n;
        for (let depth = 0; depth < 6 && node !== null && typeof node === 'object'; depth++) {
          const keys = Object.keys(node as object);
          if (keys.length === 0) break;
          const key = keys[k % keys.length]!;
          k = Math.floor(k / 7);
          const child = (node as Record<string, unknown>)[key];
          if (child === null || typeof child !== 'object' || k % 3 === 0) {
            (node as Record<string, unknown>)[key] = x;
            break;
          }
          node = child;
        }
      }
      encodeAny(v);
    }),
    { numRuns: 1500 },
  );
});

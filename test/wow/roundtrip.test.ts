import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toHex } from '../../src/core/hex.js';
import {
  bodyFromJson,
  bodyToJson,
  decodeBody,
  decodePacket,
  encodeBody,
  encodePacket,
  encodeUpdatePacket,
  packetFromJson,
  packetToJson,
  type UpdateBody,
} from '../../src/protocols/wow/index.js';
import { bodyArb, movementArb } from './arbitraries.js';
import { warmUp } from './warm.js';

// Every exact re-encoding property below runs hot: optimised code must keep float bits too.
test('JIT warm-up: 60,000 decode → encode round trips keep signalling NaNs', () => {
  assert.deepEqual(warmUp(), { bytes: [], json: [] });
});

test('decode(encode(x)) = x for random bodies with blocks of every kind and flag combination', () => {
  fc.assert(
    fc.property(bodyArb, fc.constantFrom('u64' as const, 'packed' as const), (body, width) => {
      const bytes = encodeBody(body, { movementBlockGuid: width });
      const back = decodeBody(bytes, { movementBlockGuid: width });
      assert.deepStrictEqual(back, body);
      assert.equal(toHex(encodeBody(back, { movementBlockGuid: width })), toHex(bytes));
    }),
    { numRuns: 1500 },
  );
});

test('every movement layout branch is reached by the generator', () => {
  const seen = new Set<string>();
  fc.assert(
    fc.property(movementArb, (m) => {
      if (m.movementInfo?.transport) seen.add('transport');
      if (m.movementInfo?.pitch !== undefined) seen.add('swimming');
      if (m.movementInfo?.jump) seen.add('jumping');
      if (m.movementInfo?.splineElevation !== undefined) seen.add('elevation');
      if (m.spline?.facingPoint) seen.add('point');
      if (m.spline?.facingTarget !== undefined) seen.add('target');
      if (m.spline?.facingAngle !== undefined) seen.add('angle');
      if (m.spline && !m.spline.facingPoint && m.spline.facingTarget === undefined && m.spline.facingAngle === undefined) seen.add('no facing');
      if (m.position) seen.add('position');
      if (m.victim !== undefined) seen.add('victim');
      if (m.nanBits) seen.add('nan bits');
    }),
    { numRuns: 3000, seed: 7 },
  );
  assert.deepEqual([...seen].sort(), [
    'angle',
    'elevation',
    'jumping',
    'nan bits',
    'no facing',
    'point',
    'position',
    'swimming',
    'target',
    'transport',
    'victim',
  ]);
});

test('the printed JSON reads back to the same bytes (floats, NaN payloads, -0, guids)', () => {
  fc.assert(
    fc.property(bodyArb, (body) => {
      const bytes = encodeBody(body);
      const json = JSON.parse(JSON.stringify(bodyToJson(decodeBody(bytes))));
      assert.equal(toHex(encodeBody(bodyFromJson(json))), toHex(bytes));
    }),
    { numRuns: 700 },
  );
});

test('whole packets: compressed and uncompressed frames round-trip through bytes and JSON', () => {
  fc.assert(
    fc.property(bodyArb, fc.integer({ min: 0, max: 300 }), (body: UpdateBody, threshold) => {
      const frameBytes = encodeUpdatePacket(body, { compressThreshold: threshold });
      const p = decodePacket(frameBytes);
      assert.ok(p.opcode !== 0xaa);
      assert.deepStrictEqual(p.body, body);
      assert.equal(p.opcode, encodeBody(body).length > threshold ? 0x1f6 : 0xa9);
      assert.equal(toHex(encodePacket(p)), toHex(frameBytes));
      const j = JSON.parse(JSON.stringify(packetToJson(p, { size: frameBytes.length - 2 })));
      assert.equal(toHex(encodePacket(packetFromJson(j))), toHex(frameBytes));
    }),
    { numRuns: 300 },
  );
});

test('the fast path (no spans) and the field-by-field path (spans) decode the same values', async () => {
  const { SpanSink } = await import('../../src/core/spans.js');
  fc.assert(
    fc.property(bodyArb, (body) => {
      const bytes = encodeBody(body);
      const sink = new SpanSink();
      assert.deepStrictEqual(decodeBody(bytes, { spans: sink }), decodeBody(bytes));
      // spans stay inside the body and every block has one
      for (const s of sink.spans) assert.ok(s.start >= 0 && s.end <= bytes.length && s.start <= s.end, s.path);
      for (let i = 0; i < body.blocks.length; i++) assert.ok(sink.spans.some((s) => s.path === `blocks[${i}]`));
    }),
    { numRuns: 400 },
  );
});

test('a nanBits entry that is not the bits of a float32 NaN is refused, not written as another value', () => {
  const body = (bits: number): UpdateBody => ({
    hasTransport: 0,
    blocks: [{ updateType: 1, guid: 1n, movement: { updateFlags: 0x40, position: { x: NaN, y: 0, z: 0, o: 0 }, nanBits: { 'position.x': bits } } }],
  });
  // 1.0, +Infinity, past u32, negative, fractional: the decoder would not read back this NaN
  for (const bits of [0x3f800000, 0x7f800000, 2 ** 32 + 0x7f800001, -1, 0x7f800001 + 0.5]) {
    assert.throws(() => encodeBody(body(bits)), { name: 'EncodeError', message: /position\.x/ }, `bits ${bits}`);
  }
  // a signalling NaN and a negative quiet NaN keep their bits
  for (const bits of [0x7f800001, 0xffc00000]) {
    const back = decodeBody(encodeBody(body(bits))).blocks[0]!;
    assert.equal(back.updateType === 1 && back.movement.nanBits?.['position.x'], bits);
  }
});

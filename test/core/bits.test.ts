import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BitReader, BitWriter } from '../../src/core/bits.js';
import { DecodeError } from '../../src/core/errors.js';

test('bits are most significant first', () => {
  const w = new BitWriter();
  w.bit(true).bits(0b01, 2).bits(0x1ff, 9).alignToByte();
  // 1 01 111111111 0000 -> 1011 1111 | 1111 0000
  assert.deepEqual([...w.finish()], [0b10111111, 0b11110000]);
  const r = new BitReader(new Uint8Array([0b10111111, 0b11110000]));
  assert.equal(r.bit(), true);
  assert.equal(r.bits(2), 1);
  assert.equal(r.bits(9), 0x1ff);
});

test('values of any width at any bit offset round-trip', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.integer({ min: 0, max: 64 }).chain((n) => fc.tuple(fc.constant(n), fc.bigInt({ min: 0n, max: n === 0 ? 0n : (1n << BigInt(n)) - 1n }))),
        { maxLength: 50 },
      ),
      (fields) => {
        const w = new BitWriter(1);
        for (const [n, v] of fields) {
          if (n <= 32) w.bits(Number(v), n);
          else w.bitsBig(v, n);
        }
        const total = fields.reduce((a, [n]) => a + n, 0);
        const bytes = w.finish();
        assert.equal(bytes.length, Math.ceil(total / 8));
        const r = new BitReader(bytes);
        for (const [n, v] of fields) {
          if (n <= 32) assert.equal(r.bits(n), Number(v));
          else assert.equal(r.bitsBig(n), v);
        }
        assert.ok(r.remainingBits < 8);
      },
    ),
  );
});

test('32-bit values stay unsigned', () => {
  const r = new BitReader(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x80]));
  r.bit();
  assert.equal(r.bits(32), 0xffffffff);
});

test('totality: reading past the end is a DecodeError at the right byte', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 16 }), fc.array(fc.integer({ min: 0, max: 64 }), { maxLength: 40 }), (bytes, widths) => {
      const r = new BitReader(bytes);
      try {
        for (const n of widths) n <= 32 ? r.bits(n) : r.bitsBig(n);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        assert.ok(e.offset <= bytes.length);
      }
    }),
  );
});

test('the writer refuses values that do not fit their width', async () => {
  const { EncodeError } = await import('../../src/core/errors.js');
  const w = new BitWriter();
  assert.throws(() => w.bits(4, 2), EncodeError);
  assert.throws(() => w.bits(-1, 8), EncodeError);
  assert.throws(() => w.bits(1.5, 8), EncodeError);
  assert.throws(() => w.bits(1, 33), EncodeError);
  assert.throws(() => w.bitsBig(1n << 40n, 40), EncodeError);
  w.bits(0xffffffff, 32).bits(0, 0).bits(3, 2);
  assert.deepEqual([...w.finish()], [0xff, 0xff, 0xff, 0xff, 0xc0]);
});

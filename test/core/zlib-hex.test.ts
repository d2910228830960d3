import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { deflateZlib, inflateZlib } from '../../src/core/zlib.js';
import { fromHex, hexdump, toHex } from '../../src/core/hex.js';
import { DecodeError, LimitError } from '../../src/core/errors.js';

for (const impl of ['node', 'portable'] as const) {
  test(`zlib (${impl}): round-trip, and each implementation reads the other's output`, () => {
    const other = impl === 'node' ? 'portable' : 'node';
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 3000 }), fc.integer({ min: 0, max: 9 }), (src, level) => {
        const z = deflateZlib(src, level, impl);
        assert.deepEqual(inflateZlib(z, { impl }), src);
        assert.deepEqual(inflateZlib(z, { impl: other }), src);
        assert.deepEqual(inflateZlib(z, { impl, expectedSize: src.length }), src);
      }),
      { numRuns: 200 },
    );
  });

  test(`zlib (${impl}): a bomb is refused, a size mismatch is an error`, () => {
    const bomb = deflateZlib(new Uint8Array(50 * 1024 * 1024), 9, 'node');
    assert.ok(bomb.length < 100 * 1024);
    assert.throws(
      () => inflateZlib(bomb, { impl, maxOutput: 1 << 20 }),
      (e: unknown) => e instanceof LimitError && e.limit === 'maxZlibOutput',
    );
    const z = deflateZlib(new Uint8Array(100), 1, impl);
    assert.throws(() => inflateZlib(z, { impl, expectedSize: 99 }), DecodeError);
    assert.throws(() => inflateZlib(z, { impl, expectedSize: 101 }), DecodeError);
  });

  test(`zlib (${impl}): totality on random and truncated streams`, () => {
    const good = deflateZlib(new TextEncoder().encode('hello hello hello hello world'), 6, 'node');
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ maxLength: 200 }),
          fc.nat(good.length).map((n) => good.slice(0, n)),
        ),
        (bytes) => {
          try {
            inflateZlib(bytes, { impl, maxOutput: 1 << 16 });
          } catch (e) {
            if (!(e instanceof DecodeError)) throw e;
          }
        },
      ),
      { numRuns: 1000 },
    );
  });
}

test('hex round-trip and lenient separators', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 100 }), (b) => {
      assert.deepEqual(fromHex(toHex(b)), b);
      assert.deepEqual(fromHex(toHex(b).toUpperCase()), b);
    }),
  );
  assert.deepEqual([...fromHex('0x01 02:0A-ff\n')], [1, 2, 10, 255]);
  assert.throws(() => fromHex('01 2'), DecodeError);
  assert.throws(
    () => fromHex('0g'),
    (e: unknown) => e instanceof DecodeError && e.offset === 1,
  );
});

test('hexdump shows offsets, bytes and ASCII', () => {
  const d = hexdump(new TextEncoder().encode('ABCDEFGHIJKLMNOPQ'));
  assert.equal(d.split('\n').length, 2);
  assert.match(d, /^0000 {2}41 42 43/);
  assert.match(d, /\|ABCDEFGHIJKLMNOP\|/);
  assert.match(d.split('\n')[1]!, /^0010 {2}51/);
});

test('fromHex is total: any string gives bytes or a DecodeError inside the string', () => {
  fc.assert(
    fc.property(fc.string({ maxLength: 60 }), (s) => {
      try {
        const b = fromHex(s);
        assert.ok(b.length <= s.length / 2);
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        assert.ok(e.offset >= 0 && e.offset < s.length);
      }
    }),
    { numRuns: 3000 },
  );
});

test('parseHexLines: one message a line, comments and blanks skipped, errors name the line', async () => {
  const { parseHexLines } = await import('../../src/core/hex.js');
  assert.deepEqual(parseHexLines('# head\n\n0a0b\r\n  0c \n'), [new Uint8Array([10, 11]), new Uint8Array([12])]);
  assert.throws(
    () => parseHexLines('00\n00\n0g\n'),
    (e: unknown) => e instanceof DecodeError && e.path === 'line 3' && e.offset === 1,
  );
});

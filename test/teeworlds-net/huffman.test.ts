import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { huffmanCode, huffmanCompress, huffmanDecompress, HUFFMAN_EOF } from '../../src/protocols/teeworlds/net/huffman.js';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';

const fx = JSON.parse(readFileSync(new URL('../fixtures/teeworlds/libtw2-huffman-test-cases.json', import.meta.url), 'utf8')) as {
  docExample: { raw: string; compressed: string };
  codes: { symbol: number; bits: string }[];
  cases: { raw: string; compressed: string }[];
};

test("huffman: the tree gives libtw2's 257 codes", () => {
  assert.equal(fx.codes.length, 257);
  for (const c of fx.codes) assert.equal(huffmanCode(c.symbol), c.bits, `symbol ${c.symbol}`);
  assert.equal(huffmanCode(0), '1');
  assert.equal(huffmanCode(HUFFMAN_EOF), '010100011101100');
});

test('huffman: doc example and 202 libtw2 cases compress and decompress exactly', () => {
  assert.equal(toHex(huffmanCompress(fromHex(fx.docExample.raw))), fx.docExample.compressed);
  assert.equal(fx.cases.length, 202);
  for (const c of fx.cases) {
    assert.equal(toHex(huffmanCompress(fromHex(c.raw))), c.compressed, c.raw);
    assert.equal(toHex(huffmanDecompress(fromHex(c.compressed))), c.raw, c.compressed);
  }
});

test('huffman: round trip of random bytes', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 1400 }), (b) => {
      assert.deepEqual(huffmanDecompress(huffmanCompress(b), 1400), b);
    }),
    { numRuns: 300 },
  );
});

test('huffman: decompress is total (random, truncated, limited)', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 600 }), fc.integer({ min: 0, max: 2048 }), (b, max) => {
      try {
        const out = huffmanDecompress(b, max);
        assert.ok(out.length <= max);
      } catch (e) {
        assert.ok(e instanceof DecodeError, String(e));
      }
    }),
    { numRuns: 1500 },
  );
  for (const c of fx.cases) {
    const comp = fromHex(c.compressed);
    for (let cut = 0; cut < comp.length; cut++) {
      try {
        huffmanDecompress(comp.subarray(0, cut));
      } catch (e) {
        assert.ok(e instanceof DecodeError);
      }
    }
  }
  // empty input has no EOF code
  assert.throws(() => huffmanDecompress(new Uint8Array(0)), DecodeError);
  // output over the limit
  assert.throws(() => huffmanDecompress(huffmanCompress(new Uint8Array(100)), 50), DecodeError);
});

test('huffman: zero-heavy payloads (the multi-symbol table path) round-trip; cut ones are a value or a DecodeError (property)', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }), { maxLength: 400 }),
      fc.nat(),
      (bytes, cut) => {
        const b = Uint8Array.from(bytes);
        const c = huffmanCompress(b);
        assert.deepEqual(huffmanDecompress(c, 4096), b);
        try {
          const part = huffmanDecompress(c.subarray(0, cut % (c.length + 1)), 4096);
          assert.deepEqual(part, b.subarray(0, part.length));
        } catch (e) {
          assert.ok(e instanceof DecodeError);
        }
      },
    ),
    { numRuns: 500 },
  );
});

/**
 * A plain reference decoder built from libtw2's code table: refills a bit
 * buffer one byte at a time to 24 bits, walks one bit at a time. The table
 * decoder must give the same bytes, or the same error (class, offset, path,
 * value).
 */
function referenceDecompress(src: Uint8Array, maxOutput: number): Uint8Array {
  const byCode = new Map<string, number>(fx.codes.map((c) => [c.bits, c.symbol]));
  const out: number[] = [];
  let pos = 0;
  let bits = '';
  for (;;) {
    while (bits.length < 24 && pos < src.length) {
      const b = src[pos++]!;
      for (let i = 0; i < 8; i++) bits += (b >> i) & 1 ? '1' : '0';
    }
    let code = '';
    let sym: number | undefined;
    while (sym === undefined) {
      if (code.length >= bits.length) throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
      code += bits[code.length];
      sym = byCode.get(code);
    }
    bits = bits.slice(code.length);
    if (sym === HUFFMAN_EOF) break;
    if (out.length >= maxOutput) throw new LimitError(pos, 'huffman', 'huffmanMaxOutput', out.length + 1, maxOutput);
    if (out.length >= src.length * 8) throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
    out.push(sym);
  }
  return Uint8Array.from(out);
}

function outcome(f: () => Uint8Array): string {
  try {
    return `ok ${toHex(f())}`;
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return `${e.name} @${e.offset} ${e.path} ${e.message} ${e instanceof LimitError ? `${e.value}/${e.max}` : ''}`;
  }
}

test('huffman: the table decoder matches a bit-by-bit reference decoder: bytes, or error class, offset, path and values (property)', () => {
  const zeroHeavy = fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 255 }) }), {
    maxLength: 300,
  });
  let errors = 0;
  let limits = 0;
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 200 }),
        zeroHeavy.map((b) => huffmanCompress(Uint8Array.from(b))),
        fc.tuple(zeroHeavy, fc.nat()).map(([b, cut]) => {
          const c = huffmanCompress(Uint8Array.from(b));
          return c.slice(0, cut % (c.length + 1));
        }),
      ),
      // small caps often, so that LimitErrors are common (the coverage check below counts them)
      fc.oneof({ weight: 2, arbitrary: fc.integer({ min: 0, max: 40 }) }, fc.integer({ min: 0, max: 400 }), fc.constant(2048)),
      (src, max) => {
        const want = outcome(() => referenceDecompress(src, max));
        if (!want.startsWith('ok')) errors++;
        if (want.startsWith('LimitError')) limits++;
        assert.equal(
          outcome(() => huffmanDecompress(src, max)),
          want,
        );
      },
    ),
    { numRuns: 600 },
  );
  // the property reached both error kinds
  assert.ok(errors > 50 && limits > 20, `errors ${errors}, limit errors ${limits}`);
});

test('huffman: results of successive decompressions are independent arrays (writing one leaves the others)', () => {
  const a = huffmanCompress(Uint8Array.from([1, 2, 3, 0, 0, 0, 4]));
  const x = huffmanDecompress(a);
  const y = huffmanDecompress(a);
  x.fill(9);
  assert.deepEqual([...y], [1, 2, 3, 0, 0, 0, 4]);
  // a failed decompression does not disturb the next one
  assert.throws(() => huffmanDecompress(huffmanCompress(new Uint8Array(100).fill(7)), 50), LimitError);
  assert.deepEqual([...huffmanDecompress(a)], [1, 2, 3, 0, 0, 0, 4]);
});

test('huffman: the word-at-a-time decoder (zero runs, codes over 12 bits, caps at the output length, inputs inside larger buffers) matches the bit-by-bit reference (property)', () => {
  const long = fx.codes.filter((c) => c.bits.length > 12).map((c) => c.symbol);
  assert.ok(long.length > 10);
  // runs of 0 bytes (one-bit codes) between common and long-coded symbols
  const piece = fc.oneof(
    fc.integer({ min: 1, max: 40 }).map((n) => new Array<number>(n).fill(0)),
    fc.integer({ min: 0, max: 255 }).map((b) => [b]),
    fc.constantFrom(...long).map((b) => [b]),
  );
  const payload = fc.array(piece, { maxLength: 60 }).map((ps) => Uint8Array.from(ps.flat()));
  let longSeen = 0;
  let capHit = 0;
  fc.assert(
    fc.property(
      payload,
      fc.integer({ min: -3, max: 3 }),
      fc.boolean(),
      fc.nat(),
      fc.uint8Array({ minLength: 1, maxLength: 9 }),
      (raw, capDelta, cut, cutAt, pad) => {
        let comp = huffmanCompress(raw);
        if (cut) comp = comp.slice(0, cutAt % (comp.length + 1));
        // the input as a view in the middle of a larger buffer, with non-zero bytes around it
        const host = new Uint8Array(comp.length + 2 * pad.length).fill(0xff);
        host.set(pad, 0);
        host.set(comp, pad.length);
        host.set(pad, pad.length + comp.length);
        const src = host.subarray(pad.length, pad.length + comp.length);
        const max = Math.max(0, raw.length + capDelta);
        if (raw.some((b) => long.includes(b))) longSeen++;
        const want = outcome(() => referenceDecompress(src, max));
        if (want.startsWith('LimitError')) capHit++;
        assert.equal(
          outcome(() => huffmanDecompress(src, max)),
          want,
        );
        assert.equal(
          outcome(() => huffmanDecompress(Buffer.from(src), max)),
          want,
        );
      },
    ),
    { numRuns: 400 },
  );
  assert.ok(longSeen > 100 && capHit > 50, `long codes in ${longSeen}, cap reached in ${capHit}`);
});

test('huffman: a decompression that fails mid-way leaves nothing behind: zero runs decoded right after it are all 0 (the decoder relies on a zeroed pool)', () => {
  const busy = huffmanCompress(Uint8Array.from({ length: 300 }, (_, i) => 1 + (i % 200)));
  const zeros = Uint8Array.from({ length: 200 }, (_, i) => (i % 50 === 49 ? 5 : 0));
  const zc = huffmanCompress(zeros);
  let failures = 0;
  for (let cut = 1; cut < busy.length; cut += 7) {
    // cut input (end of input) and a cap below the output (LimitError): both after writing bytes
    assert.throws(() => huffmanDecompress(busy.subarray(0, cut)), DecodeError);
    assert.throws(() => huffmanDecompress(busy, 20 + (cut % 200)), LimitError);
    failures += 2;
    assert.deepEqual([...huffmanDecompress(zc)], [...zeros]);
  }
  assert.ok(failures > 60, `${failures} failed decompressions`);
});

test('huffmanCompress results are views of shared slabs that later calls never overwrite: 3,000 kept results all decompress to their inputs at the end', () => {
  let seed = 5;
  const r = (): number => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  const kept: { input: Uint8Array; packed: Uint8Array; copy: number[] }[] = [];
  let shared = 0;
  for (let i = 0; i < 3000; i++) {
    // small payloads, and now and then one larger than a slab's rest
    const n = i % 500 === 499 ? 40_000 : Math.floor(r() * 300);
    const input = Uint8Array.from({ length: n }, () => (r() < 0.5 ? 0 : Math.floor(r() * 256)));
    const packed = huffmanCompress(input);
    if (packed.byteLength !== packed.buffer.byteLength) shared++;
    kept.push({ input, packed, copy: [...packed] });
  }
  for (const { input, packed, copy } of kept) {
    assert.deepEqual([...packed], copy);
    assert.deepEqual(huffmanDecompress(packed, input.length + 8), input);
  }
  assert.ok(shared > 2900, `${shared} results in shared slabs`);
});

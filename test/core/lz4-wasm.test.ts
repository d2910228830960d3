/**
 * The WebAssembly LZ4 decoder (src/core/lz4-wasm.ts, .wat) against the
 * TypeScript decoder: same bytes or the same error, the committed bytes equal
 * the assembled .wat, memory stays bounded, and the fallback without WebAssembly.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
// @ts-expect-error plain .mjs script without types
import { buildCjs } from '../../scripts/build-cjs.mjs';
// @ts-expect-error plain .mjs script without types
import { assembleLz4Wasm, bytesModule, BYTES_PATH } from '../../scripts/build-lz4-wasm.mjs';
import { decodeLz4Block, decodeLz4BlockTs, encodeLz4Block } from '../../src/core/lz4.js';
import { decodeLz4Wasm, lz4WasmActive, lz4WasmMemoryBytes, setLz4Wasm } from '../../src/core/lz4-wasm.js';
import { LZ4_WASM_BASE64 } from '../../src/core/lz4-wasm.bytes.js';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { DEFAULT_LIMITS } from '../../src/core/limits.js';
import { referenceDecodeLz4Block } from '../helpers/lz4-reference.js';
import { rng } from '../helpers/rng.js';

test('the committed src/core/lz4-wasm.bytes.ts is the assembled src/core/lz4-wasm.wat (node scripts/build-lz4-wasm.mjs)', async () => {
  const bytes: Uint8Array = await assembleLz4Wasm();
  assert.equal(readFileSync(BYTES_PATH, 'utf8'), bytesModule(bytes));
  assert.equal(LZ4_WASM_BASE64, Buffer.from(bytes).toString('base64'));
});

test('Node 20 takes the WebAssembly path', () => {
  assert.equal(lz4WasmActive(), true);
  const block = encodeLz4Block(new TextEncoder().encode('abcabcabcabc'.repeat(20)));
  assert.ok(decodeLz4Wasm(block, 1 << 20, undefined) !== undefined);
});

/** Bytes, or the error's class, offset, path and message. */
function outcome(f: () => Uint8Array): string {
  try {
    const out = f();
    // (outputs of more than 8 KiB own their buffer; smaller ones may be views of a shared pool)
    if (out.length > 8 * 1024) {
      assert.equal(out.byteOffset, 0);
      assert.equal(out.buffer.byteLength, out.length);
    }
    return `ok ${Buffer.from(out).toString('hex')}`;
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return `${e.constructor.name} ${e.name} @${e.offset} ${e.path} ${e.message}${e instanceof LimitError ? ` ${e.limit} ${e.value} ${e.max}` : ''}`;
  }
}

/** Input for the encoder: repeats (long and short, near and far) and noise. */
const plain = fc
  .array(
    fc.oneof(
      fc.uint8Array({ minLength: 1, maxLength: 48 }),
      fc.record({ back: fc.integer({ min: 1, max: 300 }), len: fc.integer({ min: 1, max: 400 }) }),
      fc.record({ byte: fc.integer({ min: 0, max: 255 }), len: fc.integer({ min: 1, max: 700 }) }),
    ),
    { maxLength: 40 },
  )
  .map((parts) => {
    const out: number[] = [];
    for (const p of parts) {
      if (p instanceof Uint8Array) out.push(...p);
      else if ('back' in p) for (let i = 0; i < p.len; i++) out.push(out.length >= p.back ? out[out.length - p.back]! : i & 255);
      else for (let i = 0; i < p.len; i++) out.push(p.byte);
    }
    return Uint8Array.from(out);
  });

test('WebAssembly and TypeScript decoders: same bytes or the same error (class, offset, path, message), on valid, damaged and random blocks with every option (property)', () => {
  const tally = { ok: 0, limit: 0, decode: 0, wasmOk: 0 };
  const check = (b: Uint8Array, max: number, size: number | undefined) => {
    const want = outcome(() => decodeLz4BlockTs(b, max, size));
    assert.equal(
      outcome(() => decodeLz4Block(b, max, size)),
      want,
    );
    // the module alone: a result exactly when the TypeScript decoder has one
    const w = decodeLz4Wasm(b, max, size);
    assert.equal(w === undefined ? 'none' : `ok ${Buffer.from(w).toString('hex')}`, want.startsWith('ok') ? want : 'none');
    if (w !== undefined) tally.wasmOk++;
    if (want.startsWith('ok')) tally.ok++;
    else if (want.startsWith('LimitError')) tally.limit++;
    else tally.decode++;
  };
  const maxArb = fc.oneof(
    { arbitrary: fc.constantFrom(1 << 20, DEFAULT_LIMITS.maxLz4Output), weight: 3 },
    { arbitrary: fc.integer({ min: 0, max: 3000 }), weight: 1 },
  );
  fc.assert(
    fc.property(
      plain,
      // intact (two in three), or cut short and/or with a few bytes changed
      fc.option(fc.record({ muts: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), cut: fc.option(fc.nat()) }), {
        freq: 3,
      }),
      maxArb,
      fc.oneof({ arbitrary: fc.constantFrom('none' as const, 'exact' as const), weight: 3 }, { arbitrary: fc.integer({ min: 0, max: 3000 }), weight: 1 }),
      (src, damage, max, sizeMode) => {
        const block = encodeLz4Block(src);
        const b = damage === null ? block : block.slice(0, damage.cut === null ? block.length : 1 + (damage.cut % block.length));
        for (const [i, v] of damage?.muts ?? []) b[i % b.length] = v;
        const size = sizeMode === 'none' ? undefined : sizeMode === 'exact' ? src.length : sizeMode;
        check(b, max, size);
        if (damage === null && sizeMode !== 'none') check(b, 1 << 20, undefined);
      },
    ),
    { numRuns: 12000 },
  );
  // random bytes: mostly malformed, some valid by chance
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 200 }), maxArb, fc.option(fc.integer({ min: 0, max: 500 })), (b, max, size) => check(b, max, size ?? undefined)),
    { numRuns: 12000 },
  );
  assert.ok(tally.ok > 5000 && tally.limit > 1000 && tally.decode > 5000 && tally.wasmOk === tally.ok, JSON.stringify(tally));
});

test('every literal length 0..140 and every match length 4..300 at offsets 1..40 and a few far ones: same bytes as the reference decoder', () => {
  let cases = 0;
  const r = rng(19);
  const run = (lit: number, off: number, len: number) => {
    const l = Math.max(lit, off);
    const parts: number[] = [];
    const ml = len - 4;
    parts.push((Math.min(l, 15) << 4) | Math.min(ml, 15));
    if (l >= 15)
      for (let rest = l - 15; ; rest -= 255) {
        parts.push(Math.min(rest, 255));
        if (rest < 255) break;
      }
    for (let i = 0; i < l; i++) parts.push((r() * 256) | 0);
    parts.push(off & 255, off >> 8);
    if (ml >= 15)
      for (let rest = ml - 15; ; rest -= 255) {
        parts.push(Math.min(rest, 255));
        if (rest < 255) break;
      }
    const tail = (lit + len) % 7;
    parts.push(tail << 4);
    for (let i = 0; i < tail; i++) parts.push(200 + i);
    const b = Uint8Array.from(parts);
    const want = referenceDecodeLz4Block(b, 1 << 20);
    assert.deepEqual(decodeLz4Wasm(b, 1 << 20, undefined), want, `lit ${lit} off ${off} len ${len}`);
    assert.deepEqual(decodeLz4Wasm(b, 1 << 20, want.length), want);
    // the output limit right at the end and one byte short
    assert.deepEqual(decodeLz4Wasm(b, want.length, undefined), want);
    assert.equal(decodeLz4Wasm(b, want.length - 1, undefined), undefined);
    cases++;
  };
  for (let lit = 0; lit <= 140; lit++) for (const off of [1, 2, 3, 7, 8, 15, 16, 17, 31, 32, 33]) run(lit, off, 4 + (lit % 40));
  for (let off = 1; off <= 40; off++) for (let len = 4; len <= 300; len += len < 70 ? 1 : 23) run(off + 3, off, len);
  for (const off of [100, 1000, 5000, 65535]) for (const len of [4, 18, 19, 33, 129, 130, 1000, 70000]) run(off, off, len);
  // lengths 4..69, then 70, 93, ..., 300 (11)
  assert.equal(cases, 141 * 11 + 40 * (66 + 11) + 4 * 8);
});

test('large outputs: the module grows its memory, a limit still holds, and the kept memory stays bounded', () => {
  const big = new Uint8Array(6 << 20);
  for (let i = 0; i < big.length; i += 4096) big[i] = i >> 12;
  const block = encodeLz4Block(big);
  // past the default limit: the TypeScript decoder's LimitError
  assert.equal(
    outcome(() => decodeLz4Block(block)),
    outcome(() => decodeLz4BlockTs(block)),
  );
  assert.match(
    outcome(() => decodeLz4Block(block)),
    /^LimitError/,
  );
  assert.deepEqual(decodeLz4Wasm(block, 8 << 20, undefined), big);
  assert.deepEqual(decodeLz4Block(block, 8 << 20, big.length), big);
  // the instance that grew past 4 MiB is not kept
  assert.ok(lz4WasmMemoryBytes() <= 4 << 20, String(lz4WasmMemoryBytes()));
  const small = encodeLz4Block(big.subarray(0, 200_000));
  assert.deepEqual(decodeLz4Block(small), big.subarray(0, 200_000));
  assert.ok(lz4WasmMemoryBytes() > 0 && lz4WasmMemoryBytes() <= 1 << 20, String(lz4WasmMemoryBytes()));
  // growth in steps during one call (a first guess of 4x the block is far too small here)
  const zeros = encodeLz4Block(new Uint8Array(3 << 20));
  assert.ok(zeros.length < 20_000);
  assert.deepEqual(decodeLz4Wasm(zeros, 4 << 20, undefined), new Uint8Array(3 << 20));
});

test('what the module leaves to the TypeScript decoder: fractional, negative or NaN limits, sizes past the limit, empty blocks, blocks over 4 MiB', () => {
  const block = encodeLz4Block(new TextEncoder().encode('hello hello hello hello'));
  for (const [max, size] of [
    [100.5, undefined],
    [-1, undefined],
    [Number.NaN, undefined],
    [100, 101],
    [100, 22.5],
    [Infinity, undefined],
  ] as [number, number | undefined][]) {
    assert.equal(
      outcome(() => decodeLz4Block(block, max, size)),
      outcome(() => decodeLz4BlockTs(block, max, size)),
      `${max} ${size}`,
    );
  }
  assert.equal(decodeLz4Wasm(block, 100.5, undefined), undefined);
  // blocks over 4 MiB: the TypeScript decoder (a literals-only block, 4 MiB + 1 literals)
  const lits = (4 << 20) + 1;
  const huge = new Uint8Array(1 + Math.floor((lits - 15) / 255) + 1 + lits);
  huge[0] = 0xf0;
  huge.fill(255, 1, 1 + Math.floor((lits - 15) / 255));
  huge[1 + Math.floor((lits - 15) / 255)] = (lits - 15) % 255;
  huge.fill(7, huge.length - lits);
  assert.ok(huge.length > 4 << 20);
  assert.equal(decodeLz4Wasm(huge, 8 << 20, undefined), undefined);
  assert.deepEqual(decodeLz4Block(huge, 8 << 20), new Uint8Array(lits).fill(7));
  assert.equal(
    outcome(() => decodeLz4Block(new Uint8Array(0))),
    outcome(() => decodeLz4BlockTs(new Uint8Array(0))),
  );
});

test('without WebAssembly (or switched off) the TypeScript decoder runs, with the same bytes and errors', () => {
  const src = new TextEncoder().encode('position velocity health '.repeat(50));
  const block = encodeLz4Block(src);
  const bad = Uint8Array.from([0x10, 0x61, 0x05, 0x00]);
  const wa = globalThis.WebAssembly;
  try {
    // @ts-expect-error a platform without WebAssembly
    delete globalThis.WebAssembly;
    setLz4Wasm(true);
    assert.equal(lz4WasmActive(), false);
    assert.equal(decodeLz4Wasm(block, 1 << 20, undefined), undefined);
    assert.deepEqual(decodeLz4Block(block), src);
    assert.equal(
      outcome(() => decodeLz4Block(bad)),
      outcome(() => referenceDecodeLz4Block(bad, 1 << 20)),
    );
  } finally {
    globalThis.WebAssembly = wa;
    setLz4Wasm(true);
  }
  assert.equal(lz4WasmActive(), true);
  setLz4Wasm(false);
  try {
    assert.equal(lz4WasmActive(), false);
    assert.equal(decodeLz4Wasm(block, 1 << 20, undefined), undefined);
    assert.deepEqual(decodeLz4Block(block), src);
  } finally {
    setLz4Wasm(true);
  }
  assert.equal(lz4WasmActive(), true);
});

test('the CommonJS single-file build (exports.require) compiles the module once and decodes with it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'tickwire-lz4-cjs-'));
  await buildCjs(dir);
  const core = createRequire(import.meta.url)(join(dir, 'core.cjs')) as { decodeLz4Block: typeof decodeLz4Block };
  const src = new TextEncoder().encode('position velocity health '.repeat(50));
  const block = encodeLz4Block(src);
  const wa = globalThis.WebAssembly;
  let compiled = 0;
  let instances = 0;
  const Module = function (this: unknown, b: BufferSource) {
    compiled++;
    return new wa.Module(b);
  } as unknown as typeof WebAssembly.Module;
  const Instance = function (this: unknown, m: WebAssembly.Module, i?: WebAssembly.Imports) {
    instances++;
    return new wa.Instance(m, i);
  } as unknown as typeof WebAssembly.Instance;
  globalThis.WebAssembly = { ...wa, Module, Instance } as typeof WebAssembly;
  try {
    for (let i = 0; i < 3; i++) assert.deepEqual(core.decodeLz4Block(block), src);
  } finally {
    globalThis.WebAssembly = wa;
  }
  assert.equal(compiled, 1);
  assert.equal(instances, 1);
});

test('small outputs share a pool: every earlier output keeps its bytes through many later decodes', () => {
  const blocks: { block: Uint8Array; plain: Uint8Array }[] = [];
  for (let i = 0; i < 200; i++) {
    const plain = new Uint8Array(100 + ((i * 397) % 6000));
    for (let k = 0; k < plain.length; k++) plain[k] = (k * (i + 1)) % 7 === 0 ? i : (k >> 3) & 0xff;
    blocks.push({ block: encodeLz4Block(plain), plain });
  }
  const outs = blocks.map((b) => decodeLz4Block(b.block, 1 << 20));
  // later decodes (past several pools) must not touch earlier outputs
  for (let r = 0; r < 3; r++) for (const b of blocks) decodeLz4Block(b.block, 1 << 20);
  let shared = 0;
  outs.forEach((o, i) => {
    assert.deepEqual(o, blocks[i]!.plain, `output ${i}`);
    if (o.byteOffset !== 0 || o.buffer.byteLength !== o.length) shared++;
  });
  if (lz4WasmActive()) assert.ok(shared > 100, `outputs in the pool: ${shared}`);
});

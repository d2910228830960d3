import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteReader, ByteWriter, DecodeError } from '../../src/core/index.js';
import {
  readEntid,
  readF32,
  readJumpTable,
  readString,
  readVf,
  readVi,
  readVi64,
  readVu,
  writeEntid,
  writeF32,
  writeJumpTable,
  writeString,
  writeVf,
  writeVi,
  writeVi64,
  writeVu,
  decodeClientbound,
  F32Bits,
} from '../../src/protocols/diep/index.js';
import { hex, toHexStr, vectors } from './helpers.js';

function readAll<T>(h: string, fn: (r: ByteReader) => T): T {
  const r = new ByteReader(hex(h));
  const v = fn(r);
  assert.equal(r.pos, r.end, `${h}: consumed to the end`);
  return v;
}
function write(fn: (w: ByteWriter) => void): string {
  const w = new ByteWriter();
  fn(w);
  return toHexStr(w.finish());
}
const P = vectors.primitives;

test('vu vectors decode and re-encode', () => {
  assert.ok(P.vu!.length >= 9);
  for (const v of P.vu!) {
    assert.equal(readAll(v.hex, readVu), v.value);
    assert.equal(
      write((w) => writeVu(w, v.value as number)),
      v.hex,
    );
  }
});

test('vi vectors (zigzag, not sign-extended LEB128)', () => {
  for (const v of P.vi!) {
    assert.equal(readAll(v.hex, readVi), v.value);
    assert.equal(
      write((w) => writeVi(w, v.value as number)),
      v.hex,
    );
  }
});

test('vf vectors (byte-reversed float in a vi)', () => {
  for (const v of P.vf!) {
    assert.equal(readAll(v.hex, readVf), v.float32);
    assert.equal(
      write((w) => writeVf(w, v.value as number)),
      v.hex,
    );
  }
});

test('vi64 vectors keep the raw integer exactly', () => {
  for (const v of P.vi64!) {
    const got = readAll(v.hex, readVi64);
    assert.equal(got, v.value);
    assert.equal(got * 64, v.raw);
    assert.equal(
      write((w) => writeVi64(w, v.value as number)),
      v.hex,
    );
  }
});

test('f32 vectors and exact bits (-0, NaN payloads)', () => {
  for (const v of P.f32le!) {
    assert.equal(readAll(v.hex, readF32), Math.fround(v.value as number));
    assert.equal(
      write((w) => writeF32(w, v.value as number)),
      v.hex,
    );
  }
  for (const h of ['00000080', '0000c07f', '0100c07f', '0000c0ff', '0100807f', '0000807f', '000080ff']) {
    const v = readAll(h, readF32);
    assert.equal(
      write((w) => writeF32(w, v)),
      h,
      h,
    );
  }
  // a signalling NaN with a payload cannot live in a JS number: it is kept as bits
  assert.ok(readAll('0100807f', readF32) instanceof F32Bits);
});

test('stringNT vectors, UTF-8, strictness', () => {
  for (const v of P.stringNT!) {
    assert.equal(
      readAll(v.hex, (r) => readString(r, 1000)),
      v.value,
    );
    assert.equal(
      write((w) => writeString(w, v.value as string)),
      v.hex,
    );
  }
  assert.equal(
    readAll('c3a9e282ac00', (r) => readString(r, 1000)),
    'é€',
  );
  assert.throws(() => readAll('ff00', (r) => readString(r, 1000)), DecodeError);
  assert.throws(() => readAll('61616100', (r) => readString(r, 2)), DecodeError);
});

test('entid vectors: hash first, 00 is null', () => {
  for (const v of P.entid!) {
    assert.deepEqual(readAll(v.hex, readEntid), v.value);
    assert.equal(
      write((w) => writeEntid(w, v.value as never)),
      v.hex,
    );
  }
});

test('jump table vectors (and the original page example without the spurious 5)', () => {
  for (const v of P.jumpTable!) {
    assert.deepEqual(
      readAll(v.hex, (r) => readJumpTable(r, 100)),
      v.indices,
    );
    assert.equal(
      write((w) => writeJumpTable(w, v.indices as number[])),
      v.hex,
    );
  }
  assert.deepEqual(
    readAll('01', (r) => readJumpTable(r, 10)),
    [],
  );
  assert.throws(() => readAll('0a01', (r) => readJumpTable(r, 10)), DecodeError); // index 10 outside 0..9
});

test('every invalid vector fails with a DecodeError carrying an offset', () => {
  assert.equal(vectors.invalid.length, 12);
  const decoders: Record<string, (r: ByteReader) => unknown> = {
    vu: readVu,
    stringNT: (r) => readString(r, 1 << 16),
    entid: readEntid,
    jumpTable: (r) => readJumpTable(r, 1 << 16),
  };
  for (const v of vectors.invalid) {
    let thrown: unknown;
    try {
      if (v.kind === 'updatePacket') decodeClientbound(hex(v.hex));
      else {
        const fn = decoders[v.kind];
        assert.ok(fn, `decoder for ${v.kind}`);
        readAll(v.hex, fn);
      }
    } catch (e) {
      thrown = e;
    }
    assert.ok(thrown instanceof DecodeError, `${v.kind} ${v.hex} (${v.why}): ${String(thrown)}`);
    assert.equal(typeof thrown.offset, 'number');
    assert.ok(thrown.offset >= 0 && thrown.offset <= v.hex.length / 2);
  }
});

test('vu: reads at most 5 bytes and the shortest form only', () => {
  assert.equal(readAll('ffffffff0f', readVu), 0xffffffff);
  assert.throws(() => readAll('8000', readVu), DecodeError);
  assert.throws(() => readAll('ff8000', readVu), DecodeError);
  assert.throws(() => readAll('ffffffff10', readVu), DecodeError);
  assert.throws(() => readAll('', readVu), DecodeError);
});

test('stringNT writer: lone surrogates and NUL have no stringNT form', () => {
  assert.throws(() => write((w) => writeString(w, 'a\uD800')), /surrogate/);
  assert.throws(() => write((w) => writeString(w, '\uDC00')), /surrogate/);
  assert.throws(() => write((w) => writeString(w, 'a\0')), /NUL/);
  assert.equal(
    write((w) => writeString(w, '😀')),
    'f09f988000',
  );
});

/** The ValuesBlock (§6): `u8` mask block count, the mask words, one `u32` per set bit. */
import type { ByteReader } from '../../core/reader.js';
import type { ByteWriter } from '../../core/writer.js';
import { EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import type { ReadContext } from './context.js';
import { fieldAt } from './fields.js';
import { popcount32 } from '../../core/bits.js';
import { PackedValues, PooledValues, type UpdateValues } from './types.js';

/** Read a ValuesBlock; `typeId` (spans only) types the value spans as the JSON types them. */
export function readValues(r: ByteReader, ctx: ReadContext, typeId: number | undefined): PackedValues {
  const start = r.pos;
  const n = r.u8('values.blockCount');
  const maskAt = r.pos;
  if (maskAt + 4 * n > r.end) r.need(4 * n, 'values.mask');
  const view = r.view;
  let count = 0;
  let p = maskAt;
  for (let i = 0; i < n; i++, p += 4) {
    const w = view.getUint32(p, true);
    if (w !== 0) count += popcount32(w);
  }
  if (p + 4 * count > r.end) {
    r.pos = p;
    r.need(4 * count, 'values.values');
  }
  const total = n + count;
  const at = ctx.words(total, r.end - start);
  const pool = ctx.pool;
  p = maskAt;
  for (let i = 0; i < total; i++, p += 4) pool[at + i] = view.getUint32(p, true);
  const words = new Uint32Array(pool.buffer, 4 * at, total);
  r.pos = p;
  if (ctx.spans !== undefined) valueSpans(ctx, start, words, n, typeId);
  return new PackedValues(words, n);
}

/**
 * Spans of a ValuesBlock at the paths of its JSON (`values.mask[i]`,
 * `values.fields[k].raw` and the typed view of the same word: `int`, `float`,
 * `bytes[j]`, `shorts[j]`, `guid` over both halves).
 */
function valueSpans(ctx: ReadContext, start: number, words: Uint32Array, n: number, typeId: number | undefined): void {
  const spans = ctx.spans!;
  const maskAt = start + 1;
  spans.add('values.blockCount', start, maskAt, 'u8');
  for (let i = 0; i < n; i++) spans.add(`values.mask[${i}]`, maskAt + 4 * i, maskAt + 4 * i + 4, 'u32le');
  spans.add('values.mask', maskAt, maskAt + 4 * n, 'array');
  const first = maskAt + 4 * n;
  let at = first;
  let k = 0;
  for (let i = 0; i < n; i++) {
    let w = words[i]!;
    while (w !== 0) {
      const bit = 31 - Math.clz32(w & -w);
      w &= w - 1;
      const slot = 32 * i + bit;
      const path = `values.fields[${k}]`;
      spans.add(path, at, at + 4, 'u32le');
      spans.add(`${path}.raw`, at, at + 4, 'u32le');
      const f = typeId === undefined ? undefined : fieldAt(typeId, slot);
      if (f !== undefined) {
        if (f.type === 'float') spans.add(`${path}.float`, at, at + 4, 'f32le');
        else if (f.type === 'bytes') for (let j = 0; j < 4; j++) spans.add(`${path}.bytes[${j}]`, at + j, at + j + 1, 'u8');
        else if (f.type === 'two_shorts') for (let j = 0; j < 2; j++) spans.add(`${path}.shorts[${j}]`, at + 2 * j, at + 2 * j + 2, 'u16le');
        else if (f.type === 'guid') {
          // the JSON gives the guid on the low half when the high half (slot + 1) is present too
          const next = bit < 31 ? (words[i]! >>> (bit + 1)) & 1 : i + 1 < n ? words[i + 1]! & 1 : 0;
          if ((slot - f.index) % 2 === 0 && next === 1) spans.add(`${path}.guid`, at, at + 8, 'u64le');
        } else spans.add(`${path}.int`, at, at + 4, 'u32le');
      }
      at += 4;
      k++;
    }
  }
  spans.add('values.fields', first, at, 'array');
  spans.add('values', start, at, 'struct');
}

/**
 * Check a ValuesBlock as `writeValues` writes it (EncodeError otherwise): typed arrays of 32-bit words, at most 255
 * mask words, one value per set bit of the mask. Reads every mask word, no value.
 */
export function checkValues(v: UpdateValues): void {
  if (v === null || typeof v !== 'object') throw new EncodeError('values', `expected a values block, got ${excerpt(v)}`);
  if (v instanceof PackedValues) {
    const words = v.words;
    const n = v.blockCount;
    if (!(words instanceof Uint32Array)) throw new EncodeError('values.words', `expected a Uint32Array, got ${excerpt(words)}`);
    if (!Number.isInteger(n) || n < 0 || n > 255 || n > words.length) throw new EncodeError('values.mask', 'expected at most 255 mask words');
    let count = 0;
    for (let i = 0; i < n; i++) if (words[i] !== 0) count += popcount32(words[i]!);
    if (count !== words.length - n) throw new EncodeError('values.values', `the mask has ${count} bits set but ${words.length - n} values are given`);
    return;
  }
  if (v instanceof PooledValues) {
    const pool = v.pool;
    const n = v.blockCount;
    const at = v.at;
    if (!(pool instanceof Uint32Array) || !Number.isInteger(n) || !Number.isInteger(at) || !Number.isInteger(v.count))
      throw new EncodeError('values.mask', 'expected integer places in a Uint32Array pool');
    if (n < 0 || n > 255 || at < 0 || v.count < 0 || at + n + v.count > pool.length)
      throw new EncodeError('values.mask', 'expected at most 255 mask words inside the pool');
    let count = 0;
    for (let i = at; i < at + n; i++) if (pool[i] !== 0) count += popcount32(pool[i]!);
    if (count !== v.count) throw new EncodeError('values.values', `the mask has ${count} bits set but ${v.count} values are given`);
    return;
  }
  const mask = v.mask;
  const values = v.values;
  if (!(mask instanceof Uint32Array) || mask.length > 255)
    throw new EncodeError('values.mask', `expected a Uint32Array of at most 255 words, got ${excerpt(mask)}`);
  if (!(values instanceof Uint32Array)) throw new EncodeError('values.values', `expected a Uint32Array, got ${excerpt(values)}`);
  let count = 0;
  for (let i = 0; i < mask.length; i++) if (mask[i] !== 0) count += popcount32(mask[i]!);
  if (count !== values.length) throw new EncodeError('values.values', `the mask has ${count} bits set but ${values.length} values are given`);
}

/** Write a ValuesBlock (mask words as given, one value per set bit), checked first (`checkValues`). */
export function writeValues(w: ByteWriter, v: UpdateValues): void {
  checkValues(v);
  if (v instanceof PackedValues) {
    const words = v.words;
    w.ensure(1 + 4 * words.length);
    w.u8(v.blockCount);
    for (let i = 0; i < words.length; i++) w.u32le(words[i]!);
    return;
  }
  if (v instanceof PooledValues) {
    w.u8(v.blockCount);
    w.u32leWords(v.pool, v.at, v.at + v.blockCount + v.count);
    return;
  }
  const mask = v.mask;
  const values = v.values;
  w.ensure(1 + 4 * (mask.length + values.length));
  w.u8(mask.length);
  for (let i = 0; i < mask.length; i++) w.u32le(mask[i]!);
  for (let i = 0; i < values.length; i++) w.u32le(values[i]!);
}

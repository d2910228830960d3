/**
 * Teeworlds / DDNet Huffman packet compression (reference §14.5).
 *
 * 257 symbols (bytes 0..255 and EOF = 256), a fixed frequency table shared by
 * 0.6, 0.7 and DDNet, codes of 1..15 bits, bits packed least significant first.
 */
import { DecodeError, LimitError } from '../../../core/errors.js';

/** The games' frequency table, symbols 0..255 (EOF always counts 1). */
// prettier-ignore
const FREQ: readonly number[] = [
  1 << 30,
  4545,
  2657,
  431,
  1950,
  919,
  444,
  482,
  2244,
  617,
  838,
  542,
  715,
  1814,
  304,
  240,
  754,
  212,
  647,
  186,
  283,
  131,
  146,
  166,
  543,
  164,
  167,
  136,
  179,
  859,
  363,
  113,
  157,
  154,
  204,
  108,
  137,
  180,
  202,
  176,
  872,
  404,
  168,
  134,
  151,
  111,
  113,
  109,
  120,
  126,
  129,
  100,
  41,
  20,
  16,
  22,
  18,
  18,
  17,
  19,
  16,
  37,
  13,
  21,
  362,
  166,
  99,
  78,
  95,
  88,
  81,
  70,
  83,
  284,
  91,
  187,
  77,
  68,
  52,
  68,
  59,
  66,
  61,
  638,
  71,
  157,
  50,
  46,
  69,
  43,
  11,
  24,
  13,
  19,
  10,
  12,
  12,
  20,
  14,
  9,
  20,
  20,
  10,
  10,
  15,
  15,
  12,
  12,
  7,
  19,
  15,
  14,
  13,
  18,
  35,
  19,
  17,
  14,
  8,
  5,
  15,
  17,
  9,
  15,
  14,
  18,
  8,
  10,
  2173,
  134,
  157,
  68,
  188,
  60,
  170,
  60,
  194,
  62,
  175,
  71,
  148,
  67,
  167,
  78,
  211,
  67,
  156,
  69,
  1674,
  90,
  174,
  53,
  147,
  89,
  181,
  51,
  174,
  63,
  163,
  80,
  167,
  94,
  128,
  122,
  223,
  153,
  218,
  77,
  200,
  110,
  190,
  73,
  174,
  69,
  145,
  66,
  277,
  143,
  141,
  60,
  136,
  53,
  180,
  57,
  142,
  57,
  158,
  61,
  166,
  112,
  152,
  92,
  26,
  22,
  21,
  28,
  20,
  26,
  30,
  21,
  32,
  27,
  20,
  17,
  23,
  21,
  30,
  22,
  22,
  21,
  27,
  25,
  17,
  27,
  23,
  18,
  39,
  26,
  15,
  21,
  12,
  18,
  18,
  27,
  20,
  18,
  15,
  19,
  11,
  17,
  33,
  12,
  18,
  15,
  19,
  18,
  16,
  26,
  17,
  18,
  9,
  10,
  25,
  22,
  22,
  17,
  20,
  16,
  6,
  16,
  15,
  20,
  14,
  18,
  24,
  335,
];

export const HUFFMAN_EOF = 256;
const NUM_SYMBOLS = 257;
const NUM_NODES = 2 * NUM_SYMBOLS - 1; // 513
const ROOT = NUM_NODES - 1;
/** Bits of the decode lookup table. */
const LUT_BITS = 12;
const LUT_SIZE = 1 << LUT_BITS;

/** child0/child1 of internal nodes (index >= 257); leaves are 0..256. */
const child0 = new Int16Array(NUM_NODES);
const child1 = new Int16Array(NUM_NODES);
/** Code of each symbol, first transmitted bit in bit 0. */
const codeBits = new Uint32Array(NUM_SYMBOLS);
const codeLen = new Uint8Array(NUM_SYMBOLS);
/**
 * Decode table indexed by the next LUT_BITS input bits (first bit lowest):
 * symbol + 1 in the high part and the code length in the low 5 bits when the code
 * fits; otherwise the node reached after LUT_BITS steps, stored as -(node + 1).
 */
const lut = new Int32Array(LUT_SIZE);

function build(): void {
  let work: { node: number; freq: number }[] = [];
  for (let s = 0; s < NUM_SYMBOLS; s++) work.push({ node: s, freq: s === HUFFMAN_EOF ? 1 : FREQ[s]! });
  let next = NUM_SYMBOLS;
  while (work.length > 1) {
    // Stable sort, descending by frequency (Array.prototype.sort is stable).
    work = work.sort((x, y) => y.freq - x.freq);
    const a = work[work.length - 1]!;
    const b = work[work.length - 2]!;
    child0[next] = a.node;
    child1[next] = b.node;
    work[work.length - 2] = { node: next, freq: a.freq + b.freq };
    work.pop();
    next++;
  }
  // Codes by walking the tree.
  const stack: [number, number, number][] = [[ROOT, 0, 0]];
  while (stack.length > 0) {
    const [node, bits, len] = stack.pop()!;
    if (node < NUM_SYMBOLS) {
      codeBits[node] = bits;
      codeLen[node] = len;
      continue;
    }
    stack.push([child0[node]!, bits, len + 1]);
    stack.push([child1[node]!, bits | (1 << len), len + 1]);
  }
  for (let v = 0; v < LUT_SIZE; v++) {
    let node = ROOT;
    let i = 0;
    for (; i < LUT_BITS && node >= NUM_SYMBOLS; i++) node = (v >>> i) & 1 ? child1[node]! : child0[node]!;
    lut[v] = node < NUM_SYMBOLS ? ((node + 1) << 5) | i : -(node + 1);
  }
}
build();

/**
 * Multi-symbol decode table over the same LUT_BITS window: how many whole
 * symbols (bytes, not EOF) the window starts with, up to MULTI_MAX
 * (`multiMeta`: count in bits 4..7, their total code length in bits 0..3),
 * and those symbols (`multiLo`: the first four, first in the low byte;
 * `multiHi`: the next four). Most snapshot payload bytes are 0, whose code is
 * the single bit 1, so one lookup often yields many bytes. A count of 0 means
 * the window starts with EOF or with a code longer than LUT_BITS.
 */
const MULTI_MAX = 8;
const multiMeta = new Uint8Array(LUT_SIZE);
const multiLo = new Int32Array(LUT_SIZE);
const multiHi = new Int32Array(LUT_SIZE);
for (let v = 0; v < LUT_SIZE; v++) {
  let used = 0;
  let n = 0;
  let lo = 0;
  let hi = 0;
  while (n < MULTI_MAX) {
    const e = lut[(v >>> used) & (LUT_SIZE - 1)]!;
    if (e <= 0) break;
    const len = e & 31;
    const sym = (e >>> 5) - 1;
    if (sym === HUFFMAN_EOF || used + len > LUT_BITS) break;
    if (n < 4) lo |= sym << (8 * n);
    else hi |= sym << (8 * (n - 4));
    used += len;
    n++;
  }
  multiMeta[v] = (n << 4) | used;
  multiLo[v] = lo;
  multiHi[v] = hi;
}

/**
 * Encode table: the code of each symbol in bits 0..15 (first transmitted bit
 * lowest) and its length in bits 16..20.
 */
const encTable = new Int32Array(NUM_SYMBOLS);
for (let s = 0; s < NUM_SYMBOLS; s++) encTable[s] = codeBits[s]! | (codeLen[s]! << 16);

/** The code of a symbol as a string of 0/1 in transmission order (for tests and tools). */
export function huffmanCode(symbol: number): string {
  let s = '';
  const bits = codeBits[symbol] ?? 0;
  for (let i = 0; i < (codeLen[symbol] ?? 0); i++) s += (bits >>> i) & 1 ? '1' : '0';
  return s;
}

/**
 * Decompressed payloads are written straight into a shared pool and returned
 * as views of it (as Node's Buffer does for small buffers): no copy and no
 * allocation of a backing store per payload. A view keeps its pool alive.
 */
const POOL_SIZE = 16384;
let pool = new Uint8Array(POOL_SIZE);
let poolAt = 0;
/** Output scratch for compression (the result is copied out). */
let compScratch = new Uint8Array(4096);

/** Compress bytes; always ends with one final byte (an extra 00 when the bits end on a byte boundary). */
export function huffmanCompress(data: Uint8Array): Uint8Array {
  // At most 15 bits per symbol, written 16 bits at a time (+2 bytes of slack).
  const need = Math.ceil(((data.length + 1) * 15) / 8) + 3;
  if (compScratch.length < need) compScratch = new Uint8Array(Math.max(need, compScratch.length * 2));
  const out = compScratch;
  const n = data.length;
  let o = 0;
  let acc = 0;
  let count = 0;
  for (let i = 0; i < n; i++) {
    const e = encTable[data[i]!]!;
    acc |= (e & 0xffff) << count;
    count += e >>> 16;
    if (count >= 16) {
      out[o] = acc;
      out[o + 1] = acc >>> 8;
      o += 2;
      acc >>>= 16;
      count -= 16;
    }
  }
  const e = encTable[HUFFMAN_EOF]!;
  acc |= (e & 0xffff) << count;
  count += e >>> 16;
  while (count >= 8) {
    out[o++] = acc;
    acc >>>= 8;
    count -= 8;
  }
  out[o++] = acc;
  return out.slice(0, o);
}

/**
 * Decompress a Huffman payload. Total: input that ends before the EOF code, or
 * output longer than `maxOutput` bytes, gives a DecodeError.
 */
export function huffmanDecompress(src: Uint8Array, maxOutput = 2048): Uint8Array {
  const cap = Math.min(maxOutput, src.length * 8);
  if (poolAt + cap + MULTI_MAX > pool.length) {
    pool = new Uint8Array(Math.max(POOL_SIZE, cap + MULTI_MAX));
    poolAt = 0;
  }
  const out = pool;
  const base = poolAt;
  let o = base;
  let pos = 0;
  /** Bits not yet consumed, first bit lowest; `count` of them are real, the rest 0. */
  let acc = 0;
  let count = 0;
  const end = src.length;
  const end2 = end - 1;
  for (;;) {
    if (count < 16) {
      // Refill to at least 16 bits (at most 31) while input lasts.
      if (pos < end2) {
        acc |= (src[pos]! | (src[pos + 1]! << 8)) << count;
        pos += 2;
        count += 16;
      } else if (pos < end) {
        acc |= src[pos++]! << count;
        count += 8;
      }
    }
    const window = acc & (LUT_SIZE - 1);
    const meta = multiMeta[window]!;
    const used = meta & 15;
    const n = meta >>> 4;
    if (n !== 0 && used <= count && o + n <= base + cap) {
      // 1..MULTI_MAX whole bytes in one lookup (bytes past `n` are slack).
      const lo = multiLo[window]!;
      out[o] = lo;
      out[o + 1] = lo >>> 8;
      out[o + 2] = lo >>> 16;
      out[o + 3] = lo >>> 24;
      const hi = multiHi[window]!;
      out[o + 4] = hi;
      out[o + 5] = hi >>> 8;
      out[o + 6] = hi >>> 16;
      out[o + 7] = hi >>> 24;
      o += n;
      acc >>>= used;
      count -= used;
      continue;
    }
    // One symbol: EOF, a code longer than LUT_BITS, few bits left, or the output at its cap.
    let sym: number;
    let len: number;
    const e = lut[window]!;
    if (e > 0 && (e & 31) <= count) {
      sym = (e >>> 5) - 1;
      len = e & 31;
    } else {
      let node = ROOT;
      len = 0;
      if (e < 0 && count >= LUT_BITS) {
        node = -e - 1;
        len = LUT_BITS;
      }
      while (node >= NUM_SYMBOLS) {
        if (len >= count) {
          throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
        }
        node = (acc >>> len) & 1 ? child1[node]! : child0[node]!;
        len++;
      }
      sym = node;
    }
    if (sym === HUFFMAN_EOF) break;
    if (o - base >= cap) {
      if (o - base >= maxOutput) {
        // The input offset is reported as a decoder refilling to 24..31 bits one byte at a time would have it.
        const consumed = pos * 8 - count;
        throw new LimitError(Math.min(end, Math.ceil((consumed + 24) / 8)), 'huffman', 'huffmanMaxOutput', o - base + 1, maxOutput);
      }
      throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
    }
    acc >>>= len;
    count -= len;
    out[o++] = sym;
  }
  // Keep the next result 8-byte aligned.
  poolAt = (o + 7) & ~7;
  return out.subarray(base, o);
}

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
 * byte symbols (not EOF) the window starts with, up to 3 (`multiMeta`: count
 * in bits 5..6, their total code length in bits 0..4), and those symbols
 * (`multiSyms`: first in the low byte). Most snapshot payload bytes are 0,
 * whose code is short, so one lookup often yields two or three bytes.
 */
const multiMeta = new Uint8Array(LUT_SIZE);
const multiSyms = new Int32Array(LUT_SIZE);
for (let v = 0; v < LUT_SIZE; v++) {
  let used = 0;
  let n = 0;
  let syms = 0;
  while (n < 3) {
    const e = lut[(v >>> used) & (LUT_SIZE - 1)]!;
    if (e <= 0) break;
    const len = e & 31;
    const sym = (e >>> 5) - 1;
    if (sym === HUFFMAN_EOF || used + len > LUT_BITS) break;
    syms |= sym << (8 * n);
    used += len;
    n++;
  }
  multiMeta[v] = (n << 5) | used;
  multiSyms[v] = syms;
}

/** The code of a symbol as a string of 0/1 in transmission order (for tests and tools). */
export function huffmanCode(symbol: number): string {
  let s = '';
  const bits = codeBits[symbol] ?? 0;
  for (let i = 0; i < (codeLen[symbol] ?? 0); i++) s += (bits >>> i) & 1 ? '1' : '0';
  return s;
}

/** Output scratch for decompression (the result is copied out). */
let scratch = new Uint8Array(2048);

/** Compress bytes; always ends with one final byte (an extra 00 when the bits end on a byte boundary). */
export function huffmanCompress(data: Uint8Array): Uint8Array {
  // At most 15 bits per symbol.
  const out = new Uint8Array(Math.ceil(((data.length + 1) * 15) / 8) + 1);
  let o = 0;
  let acc = 0;
  let count = 0;
  for (let i = 0; i <= data.length; i++) {
    const sym = i < data.length ? data[i]! : HUFFMAN_EOF;
    acc |= codeBits[sym]! << count;
    count += codeLen[sym]!;
    while (count >= 8) {
      out[o++] = acc & 0xff;
      acc >>>= 8;
      count -= 8;
    }
  }
  out[o++] = acc & 0xff;
  return out.slice(0, o);
}

/**
 * Decompress a Huffman payload. Total: input that ends before the EOF code, or
 * output longer than `maxOutput` bytes, gives a DecodeError.
 */
export function huffmanDecompress(src: Uint8Array, maxOutput = 2048): Uint8Array {
  const cap = Math.min(maxOutput, src.length * 8);
  if (scratch.length < cap) scratch = new Uint8Array(Math.max(cap, scratch.length * 2));
  const out = scratch;
  let o = 0;
  let pos = 0;
  let acc = 0;
  let count = 0;
  const end = src.length;
  for (;;) {
    while (count < 24 && pos < end) {
      acc |= src[pos++]! << count;
      count += 8;
    }
    const window = acc & (LUT_SIZE - 1);
    const meta = multiMeta[window]!;
    if (meta >= 64 && (meta & 31) <= count && o + 3 <= cap) {
      // two or three whole bytes in one lookup
      const syms = multiSyms[window]!;
      out[o++] = syms & 0xff;
      out[o++] = (syms >>> 8) & 0xff;
      if (meta >= 96) out[o++] = syms >>> 16;
      acc >>>= meta & 31;
      count -= meta & 31;
      continue;
    }
    let sym: number;
    let len: number;
    const e = lut[window]!;
    if (e > 0 && (e & 31) <= count) {
      sym = (e >>> 5) - 1;
      len = e & 31;
    } else {
      // Slow path: walk bit by bit (long code, or few bits left).
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
    acc >>>= len;
    count -= len;
    if (sym === HUFFMAN_EOF) break;
    if (o >= cap) {
      if (o >= maxOutput) throw new LimitError(pos, 'huffman', 'huffmanMaxOutput', o + 1, maxOutput);
      throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
    }
    out[o++] = sym;
  }
  return out.slice(0, o);
}

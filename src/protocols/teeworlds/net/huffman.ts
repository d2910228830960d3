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
 * Multi-symbol decode table over the same LUT_BITS window, one Int32 per
 * window: the whole symbols (bytes, not EOF) the window starts with, as many
 * as fit, of which only the first 3 may be other than 0 (a 0 byte's code is
 * the single bit 1: most snapshot payload bytes are 0). The first 3 symbols
 * in bits 0..23 (first symbol in the low byte, 0 past the count), their total
 * code length in bits 24..27 and their count in bits 28..31. 0 means the
 * window starts with EOF or with a code longer than LUT_BITS.
 */
const MULTI_ZEROS = 12;
const multi = new Int32Array(LUT_SIZE);
for (let v = 0; v < LUT_SIZE; v++) {
  let used = 0;
  let n = 0;
  let syms = 0;
  while (n < MULTI_ZEROS) {
    const e = lut[(v >>> used) & (LUT_SIZE - 1)]!;
    if (e <= 0) break;
    const len = e & 31;
    const sym = (e >>> 5) - 1;
    if (sym === HUFFMAN_EOF || used + len > LUT_BITS) break;
    if (n >= 3 && sym !== 0) break;
    if (n < 3) syms |= sym << (8 * n);
    used += len;
    n++;
  }
  multi[v] = n === 0 ? 0 : (n << 28) | (used << 24) | syms;
}

/**
 * Codes longer than LUT_BITS (at most 15 bits): indexed by
 * (node reached after LUT_BITS bits - NUM_SYMBOLS) * 8 + the next 3 bits,
 * (symbol + 1) << 5 | code length, or 0 when those bits do not end a code.
 */
const LONG_BITS = 3;
const longLut = new Int32Array((NUM_NODES - NUM_SYMBOLS) << LONG_BITS);
for (let nd = NUM_SYMBOLS; nd < NUM_NODES; nd++) {
  for (let v = 0; v < 1 << LONG_BITS; v++) {
    let node = nd;
    let i = 0;
    for (; i < LONG_BITS && node >= NUM_SYMBOLS; i++) node = (v >>> i) & 1 ? child1[node]! : child0[node]!;
    longLut[((nd - NUM_SYMBOLS) << LONG_BITS) | v] = node < NUM_SYMBOLS ? ((node + 1) << 5) | (LUT_BITS + i) : 0;
  }
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
 * The pool past `poolAt` is all 0 (a fresh buffer, and the decoder never
 * leaves anything else there): the decoder writes a whole 32-bit word per
 * table step, the step's first 3 symbols and 0 above them, and a run of 0
 * symbols past those is already in place. A decode that fails zeroes what it
 * wrote.
 */
const POOL_SIZE = 65536;
const POOL_SLACK = 16;
let poolBuf = new ArrayBuffer(POOL_SIZE);
let poolView = new DataView(poolBuf);
let pool = new Uint8Array(poolBuf);
let poolAt = 0;
/**
 * The input is copied into this scratch, followed by 8 zero bytes, so that
 * the decoder reads it 32 bits at a time at any byte offset. Inputs larger
 * than SCRATCH_KEEP get a scratch of their own, not kept.
 */
const SCRATCH_KEEP = 65536;
let inScratch = new Uint8Array(4096);
let inView = new DataView(inScratch.buffer);
/**
 * Compression output is written straight into a shared slab and returned as a view of it (no allocation of its own
 * per call: a payload's result would otherwise get an off-heap store); a new slab when the rest is too short. A
 * slab is never written again where a result lies.
 */
const COMP_SLAB = 65536;
let compSlab = new Uint8Array(0);
let compAt = 0;

/**
 * Compress bytes; always ends with one final byte (an extra 00 when the bits end on a byte boundary). The result is
 * a view of a shared buffer (use its `byteOffset` and `length`, not its `.buffer` alone).
 */
export function huffmanCompress(data: Uint8Array): Uint8Array {
  // At most 15 bits per symbol, written 16 bits at a time (+2 bytes of slack).
  const need = Math.ceil(((data.length + 1) * 15) / 8) + 3;
  if (compAt + need > compSlab.length) {
    compSlab = new Uint8Array(Math.max(COMP_SLAB, need));
    compAt = 0;
  }
  const out = compSlab;
  const n = data.length;
  const start = compAt;
  let o = start;
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
  compAt = o;
  return out.subarray(start, o);
}

/**
 * Decompress a Huffman payload. Total: input that ends before the EOF code, or
 * output longer than `maxOutput` bytes, gives a DecodeError.
 */
export function huffmanDecompress(src: Uint8Array, maxOutput = 2048): Uint8Array {
  const end = src.length;
  const cap = Math.min(maxOutput, end * 8);
  if (poolAt + cap + POOL_SLACK > poolBuf.byteLength) {
    poolBuf = new ArrayBuffer(Math.max(POOL_SIZE, cap + POOL_SLACK));
    poolView = new DataView(poolBuf);
    pool = new Uint8Array(poolBuf);
    poolAt = 0;
  }
  let inBytes = inScratch;
  let inp = inView;
  if (end + 8 > inBytes.length) {
    inBytes = new Uint8Array(end + 8);
    inp = new DataView(inBytes.buffer);
    if (end + 8 <= SCRATCH_KEEP) {
      inScratch = inBytes;
      inView = inp;
    }
  }
  inBytes.set(src);
  inp.setInt32(end, 0);
  inp.setInt32(end + 4, 0);
  const out = poolView;
  const base = poolAt;
  const lim = base + cap;
  const bits = end * 8;
  /** Output position, and bits consumed. */
  let o = base;
  let bp = 0;
  // Fast loop: up to two table steps per 32-bit read (which holds at least 25
  // bits from bp), while 24 input bits and room for 24 output bytes remain.
  // Codes longer than LUT_BITS (at most 15 bits) are decoded here too; EOF
  // leaves the loop.
  const bpFast = bits - 24;
  const oFast = lim - 24;
  for (;;) {
    while (bp <= bpFast && o <= oFast) {
      let x = inp.getInt32(bp >>> 3, true) >>> (bp & 7);
      let m = multi[x & (LUT_SIZE - 1)]!;
      if (m === 0) {
        let e = lut[x & (LUT_SIZE - 1)]!;
        if (e < 0) e = longLut[((-e - 1 - NUM_SYMBOLS) << LONG_BITS) | ((x >>> LUT_BITS) & ((1 << LONG_BITS) - 1))]!;
        const sym = (e >>> 5) - 1;
        if (e <= 0 || sym === HUFFMAN_EOF) break;
        pool[o++] = sym;
        bp += e & 31;
        continue;
      }
      out.setInt32(o, m & 0xffffff, true);
      o += m >>> 28;
      const used = (m >>> 24) & 15;
      bp += used;
      x >>>= used;
      m = multi[x & (LUT_SIZE - 1)]!;
      if (m === 0) continue;
      out.setInt32(o, m & 0xffffff, true);
      o += m >>> 28;
      bp += (m >>> 24) & 15;
    }
    // One checked step: the bits past the input read as 0 and count for nothing.
    const x = inp.getInt32(bp >>> 3, true) >>> (bp & 7);
    const count = bits - bp;
    const window = x & (LUT_SIZE - 1);
    const m = multi[window]!;
    if (m !== 0 && ((m >>> 24) & 15) <= count && o + (m >>> 28) <= lim) {
      out.setInt32(o, m & 0xffffff, true);
      o += m >>> 28;
      bp += (m >>> 24) & 15;
      continue;
    }
    // One symbol: EOF, a code longer than LUT_BITS, few bits left, or the output at its cap.
    let sym: number;
    let len: number;
    let e = lut[window]!;
    if (e < 0) {
      const e2 = longLut[((-e - 1 - NUM_SYMBOLS) << LONG_BITS) | ((x >>> LUT_BITS) & ((1 << LONG_BITS) - 1))]!;
      if (e2 !== 0) e = e2;
    }
    if (e > 0 && (e & 31) <= count) {
      sym = (e >>> 5) - 1;
      len = e & 31;
    } else {
      e = lut[window]!;
      let node = ROOT;
      len = 0;
      if (e < 0 && count >= LUT_BITS) {
        node = -e - 1;
        len = LUT_BITS;
      }
      while (node >= NUM_SYMBOLS) {
        if (len >= count) {
          pool.fill(0, base, o);
          throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
        }
        node = (x >>> len) & 1 ? child1[node]! : child0[node]!;
        len++;
      }
      sym = node;
    }
    if (sym === HUFFMAN_EOF) break;
    if (o >= lim) {
      pool.fill(0, base, o);
      if (o - base >= maxOutput) {
        // The input offset is reported as a decoder refilling to 24..31 bits one byte at a time would have it.
        throw new LimitError(Math.min(end, Math.ceil((bp + 24) / 8)), 'huffman', 'huffmanMaxOutput', o - base + 1, maxOutput);
      }
      throw new DecodeError(src.length, 'huffman', 'the EOF code', 'end of input');
    }
    bp += len;
    pool[o++] = sym;
  }
  // Keep the next result 8-byte aligned.
  poolAt = (o + 7) & ~7;
  return new Uint8Array(poolBuf, base, o - base);
}

/**
 * LZ4 raw block format: no frame, no size prefix.
 *
 * A block is a run of sequences: a token byte (high nibble literal length,
 * low nibble match length - 4, each extended by 255-runs when 15), the
 * literals, a little-endian u16 offset back into the output, and the match.
 * The last sequence has literals only.
 */
import { DecodeError, LimitError } from './errors.js';
import { DEFAULT_LIMITS } from './limits.js';
import { decodeLz4Wasm } from './lz4-wasm.js';

/**
 * Decompress one raw LZ4 block. Output is capped at `maxOutput` bytes (default
 * `DEFAULT_LIMITS.maxLz4Output`, 512 KiB); a block that would inflate past it is a
 * `LimitError`. Malformed blocks are `DecodeError`s with the offset in `src`.
 * When `expectedSize` is given the output must be exactly that long.
 *
 * Runs a small WebAssembly decoder (src/core/lz4-wasm.ts) where the platform
 * has WebAssembly, else the TypeScript decoder `decodeLz4BlockTs`; both give the
 * same bytes, and every error comes from the TypeScript decoder. An output of
 * at most 8 KiB may be a view of a shared 64 KiB buffer (its `byteOffset` not
 * 0): its bytes are never written again, but read it through `byteOffset`.
 */
export function decodeLz4Block(src: Uint8Array, maxOutput: number = DEFAULT_LIMITS.maxLz4Output, expectedSize?: number): Uint8Array {
  return decodeLz4Wasm(src, maxOutput, expectedSize) ?? decodeLz4BlockTs(src, maxOutput, expectedSize);
}

/**
 * The TypeScript LZ4 block decoder: `decodeLz4Block` without WebAssembly (its
 * fallback, and the source of its errors). Internal; exported for tests and benches.
 */
export function decodeLz4BlockTs(src: Uint8Array, maxOutput: number = DEFAULT_LIMITS.maxLz4Output, expectedSize?: number): Uint8Array {
  if (expectedSize !== undefined && expectedSize > maxOutput) {
    throw new LimitError(0, 'lz4', 'maxLz4Output', expectedSize, maxOutput);
  }
  const n = src.length;
  if (n === 0) throw new DecodeError(0, 'lz4', 'LZ4 token', 'empty block');
  // Without an expected size, decode into a reused scratch buffer and copy the
  // result out once: cheaper than a guessed allocation that is grown and trimmed.
  let out = expectedSize === undefined ? scratch : new Uint8Array(expectedSize);
  let cap = expectedSize ?? Math.min(maxOutput, out.length);
  let outView = out === scratch ? scratchView : new DataView(out.buffer, out.byteOffset, out.length);
  const srcView = new DataView(src.buffer, src.byteOffset, n);
  let op = 0;
  let ip = 0;
  for (;;) {
    const tokenAt = ip;
    if (ip >= n) throw new DecodeError(ip, 'lz4', 'a token (a block ends with a literals-only sequence)', 'end of block after a match');
    const token = src[ip++]!;
    // literal length
    let lit = token >>> 4;
    if (lit === 15) {
      for (;;) {
        if (ip >= n) throw new DecodeError(ip, 'lz4', 'literal length byte', 'end of block');
        const b = src[ip++]!;
        lit += b;
        if (b !== 255) break;
      }
    }
    if (lit > 0) {
      if (ip + lit > n) throw new DecodeError(ip, 'lz4', `${lit} literal bytes`, `${n - ip} left`);
      const need = op + lit;
      if (need > cap) {
        if (need > maxOutput) throw new LimitError(ip, 'lz4', 'maxLz4Output', need, maxOutput);
        if (expectedSize !== undefined) throw new DecodeError(ip, 'lz4', `output of ${expectedSize} bytes`, 'more');
        cap = Math.min(maxOutput, Math.max(need, cap * 2));
        const next = new Uint8Array(cap);
        next.set(out.subarray(0, op));
        out = next;
        outView = new DataView(next.buffer);
      }
      if (lit < 64 && ip + lit + 16 <= n && op + lit + 16 <= out.length) {
        // short literals (most of them): 16 bytes at a time as 4-byte words; the
        // bytes past `lit` land in output space that later sequences overwrite
        let i = 0;
        do {
          outView.setInt32(op + i, srcView.getInt32(ip + i, true), true);
          outView.setInt32(op + i + 4, srcView.getInt32(ip + i + 4, true), true);
          outView.setInt32(op + i + 8, srcView.getInt32(ip + i + 8, true), true);
          outView.setInt32(op + i + 12, srcView.getInt32(ip + i + 12, true), true);
          i += 16;
        } while (i < lit);
      } else if (lit < 64) {
        for (let i = 0; i < lit; i++) out[op + i] = src[ip + i]!;
      } else {
        out.set(src.subarray(ip, ip + lit), op);
      }
      op += lit;
      ip += lit;
    }
    if (ip === n) break; // last sequence: literals only
    // match
    if (ip + 2 > n) throw new DecodeError(ip, 'lz4', 'match offset (2 bytes)', `${n - ip} left`);
    const offset = src[ip]! | (src[ip + 1]! << 8);
    if (offset === 0 || offset > op) {
      throw new DecodeError(ip, 'lz4', `match offset in 1..${op}`, String(offset));
    }
    ip += 2;
    let len = (token & 15) + 4;
    if ((token & 15) === 15) {
      for (;;) {
        if (ip >= n) throw new DecodeError(ip, 'lz4', 'match length byte', 'end of block');
        const b = src[ip++]!;
        len += b;
        if (b !== 255) break;
      }
    }
    const need = op + len;
    if (need > cap) {
      if (need > maxOutput) throw new LimitError(tokenAt, 'lz4', 'maxLz4Output', need, maxOutput);
      if (expectedSize !== undefined) throw new DecodeError(tokenAt, 'lz4', `output of ${expectedSize} bytes`, 'more');
      cap = Math.min(maxOutput, Math.max(need, cap * 2));
      const next = new Uint8Array(cap);
      next.set(out.subarray(0, op));
      out = next;
      outView = new DataView(next.buffer);
    }
    let from = op - offset;
    const stop = op + len;
    if (len < 64 && stop + 8 <= out.length) {
      // short matches (most of them): 8 bytes at a time, unrolled, up to 7 bytes
      // past the end into output space that later sequences overwrite; byte by
      // byte in order, so right for overlapping matches (offset < len) too
      if (offset >= 4 && stop + 16 <= out.length) {
        // as 4-byte words (each reads bytes already written, as offset >= 4)
        do {
          outView.setInt32(op, outView.getInt32(from, true), true);
          outView.setInt32(op + 4, outView.getInt32(from + 4, true), true);
          outView.setInt32(op + 8, outView.getInt32(from + 8, true), true);
          outView.setInt32(op + 12, outView.getInt32(from + 12, true), true);
          op += 16;
          from += 16;
        } while (op < stop);
      } else {
        do {
          out[op] = out[from]!;
          out[op + 1] = out[from + 1]!;
          out[op + 2] = out[from + 2]!;
          out[op + 3] = out[from + 3]!;
          out[op + 4] = out[from + 4]!;
          out[op + 5] = out[from + 5]!;
          out[op + 6] = out[from + 6]!;
          out[op + 7] = out[from + 7]!;
          op += 8;
          from += 8;
        } while (op < stop);
      }
      op = stop;
    } else if (len < 64) {
      // short matches (most of them): a byte loop beats copyWithin's call; it is
      // also right for overlapping matches (offset < len), which repeat a pattern
      while (op < stop) out[op++] = out[from++]!;
    } else if (offset >= len) {
      out.copyWithin(op, from, from + len);
      op += len;
    } else {
      while (op < stop) out[op++] = out[from++]!;
    }
  }
  if (expectedSize !== undefined && op !== expectedSize) {
    throw new DecodeError(n, 'lz4', `output of ${expectedSize} bytes`, `${op} bytes`);
  }
  if (expectedSize !== undefined) return out;
  if (out !== scratch && out.length <= SCRATCH_KEEP) {
    scratch = out;
    scratchView = outView;
  }
  return out.slice(0, op);
}

/** Decode scratch (decoding is synchronous); kept across calls while at most SCRATCH_KEEP bytes. */
let scratch = new Uint8Array(64 * 1024);
/** A view of `scratch` for 4-byte copies. */
let scratchView = new DataView(scratch.buffer);
const SCRATCH_KEEP = 1 << 20;

const HASH_LOG = 14;
const MIN_MATCH = 4;
const MF_LIMIT = 12; // a match may not start in the last 12 bytes
const LAST_LITERALS = 5; // the last 5 bytes are always literals
const MAX_OFFSET = 65535;

/** Worst-case size of an LZ4 block for `n` input bytes. */
export function lz4Bound(n: number): number {
  return n + Math.floor(n / 255) + 16;
}

let sharedTable: Int32Array | undefined;

/**
 * Compress into one raw LZ4 block (greedy hash-chain-free matcher, like LZ4's
 * fast mode). The output decodes with any LZ4 block decoder.
 */
export function encodeLz4Block(src: Uint8Array): Uint8Array {
  const n = src.length;
  const dst = new Uint8Array(lz4Bound(n));
  let op = 0;
  let anchor = 0;

  if (n >= MF_LIMIT + 1) {
    const table = (sharedTable ??= new Int32Array(1 << HASH_LOG));
    table.fill(-1);
    const matchStartLimit = n - MF_LIMIT; // ip must be <= this
    const matchEndLimit = n - LAST_LITERALS; // a match ends at or before this
    let ip = 0;
    let misses = 0;
    while (ip <= matchStartLimit) {
      const seq = src[ip]! | (src[ip + 1]! << 8) | (src[ip + 2]! << 16) | (src[ip + 3]! << 24);
      const h = Math.imul(seq, 2654435761) >>> (32 - HASH_LOG);
      const ref = table[h]!;
      table[h] = ip;
      if (ref < 0 || ip - ref > MAX_OFFSET || (src[ref]! | (src[ref + 1]! << 8) | (src[ref + 2]! << 16) | (src[ref + 3]! << 24)) !== seq) {
        ip += 1 + (misses++ >> 6);
        continue;
      }
      misses = 0;
      // extend backwards into pending literals
      let start = ip;
      let back = ref;
      while (start > anchor && back > 0 && src[start - 1] === src[back - 1]) {
        start--;
        back--;
      }
      let end = ip + MIN_MATCH;
      let r = ref + MIN_MATCH;
      while (end < matchEndLimit && src[end] === src[r]) {
        end++;
        r++;
      }
      op = writeSequence(dst, op, src, anchor, start - anchor, ip - ref, end - start);
      ip = end;
      anchor = end;
      if (ip - 2 >= 0 && ip - 2 <= matchStartLimit) {
        const p = ip - 2;
        const s2 = src[p]! | (src[p + 1]! << 8) | (src[p + 2]! << 16) | (src[p + 3]! << 24);
        table[Math.imul(s2, 2654435761) >>> (32 - HASH_LOG)] = p;
      }
    }
  }
  op = writeLastLiterals(dst, op, src, anchor, n - anchor);
  return dst.slice(0, op);
}

function writeLength(dst: Uint8Array, op: number, rest: number): number {
  while (rest >= 255) {
    dst[op++] = 255;
    rest -= 255;
  }
  dst[op++] = rest;
  return op;
}

function writeSequence(dst: Uint8Array, op: number, src: Uint8Array, litStart: number, litLen: number, offset: number, matchLen: number): number {
  const ml = matchLen - MIN_MATCH;
  dst[op++] = ((litLen >= 15 ? 15 : litLen) << 4) | (ml >= 15 ? 15 : ml);
  if (litLen >= 15) op = writeLength(dst, op, litLen - 15);
  dst.set(src.subarray(litStart, litStart + litLen), op);
  op += litLen;
  dst[op++] = offset & 0xff;
  dst[op++] = offset >>> 8;
  if (ml >= 15) op = writeLength(dst, op, ml - 15);
  return op;
}

function writeLastLiterals(dst: Uint8Array, op: number, src: Uint8Array, litStart: number, litLen: number): number {
  dst[op++] = (litLen >= 15 ? 15 : litLen) << 4;
  if (litLen >= 15) op = writeLength(dst, op, litLen - 15);
  dst.set(src.subarray(litStart, litStart + litLen), op);
  return op + litLen;
}

/**
 * A plain LZ4 block decoder for tests: byte-by-byte copies, no scratch and no
 * word copies (tickwire's decoder before its speed work). The optimised
 * decoder in src/core/lz4.ts must give the same bytes and the same errors
 * (class, offset, path, message) on every input.
 */
import { DecodeError, LimitError } from '../../src/core/errors.js';

export function referenceDecodeLz4Block(src: Uint8Array, maxOutput: number, expectedSize?: number): Uint8Array {
  if (expectedSize !== undefined && expectedSize > maxOutput) {
    throw new LimitError(0, 'lz4', 'maxLz4Output', expectedSize, maxOutput);
  }
  const n = src.length;
  if (n === 0) throw new DecodeError(0, 'lz4', 'LZ4 token', 'empty block');
  const out: number[] = [];
  let ip = 0;
  for (;;) {
    const tokenAt = ip;
    if (ip >= n) throw new DecodeError(ip, 'lz4', 'a token (a block ends with a literals-only sequence)', 'end of block after a match');
    const token = src[ip++]!;
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
      const need = out.length + lit;
      if (need > (expectedSize ?? maxOutput)) {
        if (need > maxOutput) throw new LimitError(ip, 'lz4', 'maxLz4Output', need, maxOutput);
        throw new DecodeError(ip, 'lz4', `output of ${expectedSize} bytes`, 'more');
      }
      for (let i = 0; i < lit; i++) out.push(src[ip + i]!);
      ip += lit;
    }
    if (ip === n) break;
    if (ip + 2 > n) throw new DecodeError(ip, 'lz4', 'match offset (2 bytes)', `${n - ip} left`);
    const offset = src[ip]! | (src[ip + 1]! << 8);
    if (offset === 0 || offset > out.length) throw new DecodeError(ip, 'lz4', `match offset in 1..${out.length}`, String(offset));
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
    const need = out.length + len;
    if (need > (expectedSize ?? maxOutput)) {
      if (need > maxOutput) throw new LimitError(tokenAt, 'lz4', 'maxLz4Output', need, maxOutput);
      throw new DecodeError(tokenAt, 'lz4', `output of ${expectedSize} bytes`, 'more');
    }
    for (let i = 0; i < len; i++) out.push(out[out.length - offset]!);
  }
  if (expectedSize !== undefined && out.length !== expectedSize) {
    throw new DecodeError(n, 'lz4', `output of ${expectedSize} bytes`, `${out.length} bytes`);
  }
  return Uint8Array.from(out);
}

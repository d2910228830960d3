/**
 * zlib (RFC 1950) inflate and deflate with an output cap.
 *
 * On Node the work is done by `node:zlib` (reached through
 * `process.getBuiltinModule`, so bundling this file for a browser pulls in no
 * Node module); elsewhere, or when asked, by `fflate`, fed in small pieces so
 * that a zlib bomb is stopped near the cap rather than after it has inflated.
 */
import { Unzlib, zlibSync } from 'fflate';
import { DecodeError, LimitError } from './errors.js';
import { DEFAULT_LIMITS } from './limits.js';

interface NodeZlib {
  inflateSync(buf: Uint8Array, opts: { maxOutputLength: number }): Uint8Array;
  inflateRawSync(buf: Uint8Array, opts: { maxOutputLength: number }): Uint8Array;
  deflateSync(buf: Uint8Array, opts: { level: number }): Uint8Array;
}

let nodeZlib: NodeZlib | null | undefined;
function getNodeZlib(): NodeZlib | null {
  if (nodeZlib === undefined) {
    const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    nodeZlib = (proc?.getBuiltinModule?.('node:zlib') as NodeZlib | undefined) ?? null;
  }
  return nodeZlib;
}

export type ZlibImpl = 'auto' | 'node' | 'portable';

export interface InflateOptions {
  /** Output cap in bytes (default `DEFAULT_LIMITS.maxZlibOutput`). */
  maxOutput?: number;
  /** The output must be exactly this long (WoW's declared size); checked before and after. */
  expectedSize?: number;
  /** Which implementation: node:zlib when available (`auto`), or the portable one. */
  impl?: ZlibImpl;
}

function asU8(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Inflate a zlib stream (2-byte header, deflate data, Adler-32). */
export function inflateZlib(src: Uint8Array, opts: InflateOptions = {}): Uint8Array {
  const max = opts.maxOutput ?? DEFAULT_LIMITS.maxZlibOutput;
  const expected = opts.expectedSize;
  if (expected !== undefined && expected > max) throw new LimitError(0, 'zlib', 'maxZlibOutput', expected, max);
  const cap = expected ?? max;
  let out: Uint8Array;
  const z = opts.impl === 'portable' ? null : getNodeZlib();
  if (opts.impl === 'node' && z === null) throw new Error('node:zlib is not available here');
  if (z !== null) {
    try {
      // one byte of head-room so that "more than expected" is told apart from "exactly expected"
      out = asU8(z.inflateSync(src, { maxOutputLength: Math.max(1, cap + 1) }));
    } catch (e) {
      const err = e as { code?: string; message?: string };
      if (err.code === 'ERR_BUFFER_TOO_LARGE') {
        if (expected !== undefined) throw new DecodeError(0, 'zlib', `inflated size ${expected}`, 'more');
        throw new LimitError(0, 'zlib', 'maxZlibOutput', cap + 1, max);
      }
      throw new DecodeError(0, 'zlib', 'valid zlib stream', err.message ?? String(e));
    }
  } else {
    out = inflatePortable(src, cap);
  }
  if (out.length > cap) {
    if (expected !== undefined) throw new DecodeError(0, 'zlib', `inflated size ${expected}`, 'more');
    throw new LimitError(0, 'zlib', 'maxZlibOutput', out.length, max);
  }
  if (expected !== undefined && out.length !== expected) {
    throw new DecodeError(0, 'zlib', `inflated size ${expected}`, `${out.length} bytes`);
  }
  return out;
}

function inflatePortable(src: Uint8Array, cap: number): Uint8Array {
  const chunks: Uint8Array[] = [];
  let total = 0;
  let over = false;
  let ended = false;
  const inf = new Unzlib((chunk, final) => {
    total += chunk.length;
    if (total > cap + 1) over = true;
    else chunks.push(chunk);
    if (final) ended = true;
  });
  const STEP = 512;
  try {
    for (let i = 0; i < src.length && !over; i += STEP) {
      const end = Math.min(src.length, i + STEP);
      inf.push(src.subarray(i, end), end === src.length);
    }
    if (src.length === 0) inf.push(new Uint8Array(0), true);
  } catch (e) {
    throw new DecodeError(0, 'zlib', 'valid zlib stream', e instanceof Error ? e.message : String(e));
  }
  if (over) throw new LimitError(0, 'zlib', 'maxZlibOutput', total, cap);
  if (!ended) throw new DecodeError(src.length, 'zlib', 'end of zlib stream', 'end of input');
  const out = new Uint8Array(total);
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

/** Deflate into a zlib stream at `level` (0-9, default 6). */
export function deflateZlib(src: Uint8Array, level = 6, impl: ZlibImpl = 'auto'): Uint8Array {
  const z = impl === 'portable' ? null : getNodeZlib();
  if (z !== null) return asU8(z.deflateSync(src, { level }));
  return zlibSync(src, { level: level as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 });
}

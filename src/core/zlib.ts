/**
 * zlib (RFC 1950) inflate and deflate with an output cap.
 *
 * Inflate is the strict portable decoder of `inflate.ts` everywhere (`auto`
 * and `portable`): the same bytes give the same value or error on Node and in
 * the browser, an error costs what a success costs, and output stops at the
 * cap. `impl: 'node'` asks node:zlib instead (a second opinion for tests).
 * Deflate is node:zlib on Node (reached through `process.getBuiltinModule`, so
 * bundling this file for a browser pulls in no Node module), fflate elsewhere.
 */
import { zlibSync } from 'fflate';
import { InflateError, inflateStrict, type InflateResult } from './inflate.js';
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
  /** Inflate: the portable strict decoder (`auto`, `portable`) or node:zlib (`node`). Deflate: node:zlib when available (`auto`). */
  impl?: ZlibImpl;
}

function asU8(b: Uint8Array): Uint8Array {
  return b.constructor === Uint8Array ? b : new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/** Inflate a zlib stream (2-byte header, deflate data, Adler-32). Bytes after the Adler-32 are not read. */
export function inflateZlib(src: Uint8Array, opts: InflateOptions = {}): Uint8Array {
  return inflateZlibUsed(src, opts).out;
}

/**
 * `inflateZlib`, with the number of input bytes the stream took (its Adler-32
 * trailer, checked against the output, is the four bytes before `used`); `used`
 * is -1 when node:zlib inflated (it does not tell).
 */
export function inflateZlibUsed(src: Uint8Array, opts: InflateOptions = {}): InflateResult {
  const max = opts.maxOutput ?? DEFAULT_LIMITS.maxZlibOutput;
  const expected = opts.expectedSize;
  if (expected !== undefined && expected > max) throw new LimitError(0, 'zlib', 'maxZlibOutput', expected, max);
  const cap = expected ?? max;
  if (opts.impl === 'node') return { out: inflateNode(src, cap, max, expected), used: -1 };
  let r: InflateResult;
  try {
    r = inflateStrict(src, cap, expected !== undefined);
  } catch (e) {
    if (!(e instanceof InflateError)) throw e;
    if (e.kind === 'cap') {
      if (expected !== undefined) throw new DecodeError(0, 'zlib', `inflated size ${expected}`, 'more');
      throw new LimitError(0, 'zlib', 'maxZlibOutput', cap + 1, max);
    }
    if (e.kind === 'eof') throw new DecodeError(src.length, 'zlib', 'end of zlib stream', 'end of input');
    throw new DecodeError(0, 'zlib', 'valid zlib stream', e.reason);
  }
  if (expected !== undefined && r.out.length !== expected) {
    throw new DecodeError(0, 'zlib', `inflated size ${expected}`, `${r.out.length} bytes`);
  }
  return r;
}

// --- the platform's DecompressionStream (browsers) ------------------------------

interface StreamPair {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}
type StreamCtor = new (format: 'deflate') => StreamPair;

function platformStream(): StreamCtor | undefined {
  return (globalThis as { DecompressionStream?: StreamCtor }).DecompressionStream;
}

/**
 * zlib's own inflate of `src` through `DecompressionStream('deflate')`, or
 * undefined when it fails, when the output passes `cap`, or when bytes follow
 * the stream (the callers then ask the strict decoder, which gives the error).
 */
async function inflateByStream(ctor: StreamCtor, src: Uint8Array, cap: number): Promise<Uint8Array | undefined> {
  const ds = new ctor('deflate');
  const writer = ds.writable.getWriter();
  // closed once the write is taken, with a read already waiting: in Chromium a third faster per
  // stream than closing at once (bench/web-zlib); an empty output still ends (no read waits for a chunk)
  writer
    .write(src)
    .then(() => writer.close())
    .catch(() => undefined);
  const reader = ds.readable.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.length;
      if (total > cap) {
        reader.cancel().catch(() => undefined);
        return undefined;
      }
      chunks.push(value);
    }
  } catch {
    return undefined;
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

export interface AsyncInflateOptions extends Omit<InflateOptions, 'impl'> {
  /**
   * `auto` (default): the platform's DecompressionStream where there is no
   * node:zlib (browsers), the strict decoder otherwise; `platform`: the
   * DecompressionStream wherever it exists; the others as in `inflateZlib`.
   */
  impl?: ZlibImpl | 'platform';
}

/**
 * `inflateZlib` for code that can wait: the same value or the same error
 * (offsets, paths), from the platform's native zlib when there is one. A
 * stream zlib accepts within the cap is returned as zlib inflated it — the
 * strict decoder accepts exactly those streams and gives the same bytes;
 * anything else (a failure, trailing bytes, the cap, a wrong size) is handed
 * to the strict decoder, which reports it as `inflateZlib` does.
 */
export async function inflateZlibAsync(src: Uint8Array, opts: AsyncInflateOptions = {}): Promise<Uint8Array> {
  const { impl, ...rest } = opts;
  const sync: InflateOptions = impl === 'platform' || impl === undefined ? rest : { ...rest, impl };
  const ctor = platformStream();
  const use = ctor !== undefined && (impl === 'platform' || ((impl === undefined || impl === 'auto') && getNodeZlib() === null));
  if (use) {
    const max = opts.maxOutput ?? DEFAULT_LIMITS.maxZlibOutput;
    const expected = opts.expectedSize;
    if (expected === undefined || expected <= max) {
      const out = await inflateByStream(ctor, src, expected ?? max);
      if (out !== undefined && (expected === undefined || out.length === expected)) return out;
    }
  }
  return inflateZlib(src, sync);
}

/** Whether `inflateZlibAsync` / `inflateZlibMany` with this `impl` inflate through the platform's DecompressionStream here. */
export function platformInflates(impl?: AsyncInflateOptions['impl']): boolean {
  return platformStream() !== undefined && (impl === 'platform' || ((impl === undefined || impl === 'auto') && getNodeZlib() === null));
}

/** Streams inflated at once by `inflateZlibMany` (more wait on one thread for no gain: bench/web-zlib). */
const MANY_AT_ONCE = 4;

export interface ZlibStream {
  /** The zlib stream. */
  z: Uint8Array;
  /** Its output must be exactly this long (see `InflateOptions.expectedSize`). */
  expectedSize?: number;
}

/**
 * Many zlib streams inflated through the platform's DecompressionStream, a few
 * at a time (a browser inflates a stream about as fast as node:zlib but spends
 * as long again setting it up: streams in flight share that wait). Per stream,
 * the value `inflateZlib` gives, or the error it throws (streams the platform
 * refuses are handed to the strict decoder, which tells why). Without
 * DecompressionStream (or with `impl` other than `platform` / `auto` where
 * node:zlib exists) every stream goes to `inflateZlib`.
 */
export async function inflateZlibMany(streams: readonly ZlibStream[], opts: AsyncInflateOptions = {}): Promise<Array<Uint8Array | Error>> {
  const { impl, ...rest } = opts;
  const ctor = platformStream();
  const use = ctor !== undefined && platformInflates(impl);
  const max = rest.maxOutput ?? DEFAULT_LIMITS.maxZlibOutput;
  const out = new Array<Uint8Array | Error>(streams.length);
  const strict = (i: number) => {
    const s = streams[i]!;
    const o: InflateOptions = { ...rest };
    if (s.expectedSize !== undefined) o.expectedSize = s.expectedSize;
    if (impl !== undefined && impl !== 'platform') o.impl = impl;
    try {
      out[i] = inflateZlib(s.z, o);
    } catch (e) {
      if (!(e instanceof Error)) throw e;
      out[i] = e;
    }
  };
  if (!use) {
    for (let i = 0; i < streams.length; i++) strict(i);
    return out;
  }
  let next = 0;
  const lane = async () => {
    while (next < streams.length) {
      const i = next++;
      const s = streams[i]!;
      const expected = s.expectedSize;
      if (expected === undefined || expected <= max) {
        const body = await inflateByStream(ctor, s.z, expected ?? max);
        if (body !== undefined && (expected === undefined || body.length === expected)) {
          out[i] = body;
          continue;
        }
      }
      strict(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(MANY_AT_ONCE, streams.length) }, lane));
  return out;
}

/**
 * Bodies inflated ahead of a synchronous decode (`inflateZlibMany` in a browser),
 * found again by their stream's bytes: `get(z)` gives the body of a stream with
 * exactly these bytes, or undefined (the decoder then inflates it itself).
 * Only successes are kept: a failing stream is decoded, and reported, as without.
 */
export class InflatedZlib {
  /** Entries by stream length and last four bytes (its Adler-32 trailer); the bytes are compared in full. */
  private readonly byKey = new Map<number, Array<{ z: Uint8Array; body: Uint8Array }>>();
  size = 0;

  static async of(streams: readonly ZlibStream[], opts: AsyncInflateOptions = {}): Promise<InflatedZlib> {
    const c = new InflatedZlib();
    const bodies = await inflateZlibMany(streams, opts);
    bodies.forEach((b, i) => {
      if (b instanceof Uint8Array) c.add(streams[i]!.z, b);
    });
    return c;
  }

  private static key(z: Uint8Array): number {
    const n = z.length;
    const tail = n >= 4 ? ((z[n - 4]! << 24) | (z[n - 3]! << 16) | (z[n - 2]! << 8) | z[n - 1]!) >>> 0 : 0;
    return n * 4294967296 + tail;
  }

  add(z: Uint8Array, body: Uint8Array): void {
    const k = InflatedZlib.key(z);
    let list = this.byKey.get(k);
    if (list === undefined) this.byKey.set(k, (list = []));
    list.push({ z, body });
    this.size++;
  }

  get(z: Uint8Array): Uint8Array | undefined {
    const list = this.byKey.get(InflatedZlib.key(z));
    if (list === undefined) return undefined;
    for (const e of list) if (sameBytes(e.z, z)) return e.body;
    return undefined;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * node:zlib, kept as a second opinion (tests compare it with the portable
 * decoder byte for byte and error for error). Not the default: a failed
 * stream keeps its native state until the event loop turns.
 */
function inflateNode(src: Uint8Array, cap: number, max: number, expected: number | undefined): Uint8Array {
  const z = getNodeZlib();
  if (z === null) throw new Error('node:zlib is not available here');
  let out: Uint8Array;
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
  if (out.length > cap) {
    if (expected !== undefined) throw new DecodeError(0, 'zlib', `inflated size ${expected}`, 'more');
    throw new LimitError(0, 'zlib', 'maxZlibOutput', out.length, max);
  }
  if (expected !== undefined && out.length !== expected) {
    throw new DecodeError(0, 'zlib', `inflated size ${expected}`, `${out.length} bytes`);
  }
  return out;
}

/** Deflate into a zlib stream at `level` (0-9, default 6). */
export function deflateZlib(src: Uint8Array, level = 6, impl: ZlibImpl = 'auto'): Uint8Array {
  const z = impl === 'portable' ? null : getNodeZlib();
  if (z !== null) return asU8(z.deflateSync(src, { level }));
  return zlibSync(src, { level: level as 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 });
}

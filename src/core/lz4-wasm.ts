/**
 * The WebAssembly fast path of `decodeLz4Block` (src/core/lz4.ts).
 *
 * The decode loop is a small hand-written WebAssembly module
 * (src/core/lz4-wasm.wat, assembled into lz4-wasm.bytes.ts by
 * scripts/build-lz4-wasm.mjs). It is compiled synchronously on first use
 * (`new WebAssembly.Module`, allowed on a browser's main thread for a module
 * this small), once per module instance of this file (so once per thread).
 * Where WebAssembly is missing or refuses the module, `decodeLz4Wasm` returns
 * `undefined` and the caller runs the TypeScript decoder.
 *
 * Errors: the module only tells success from failure. On any failure this
 * returns `undefined` and the caller re-runs the TypeScript decoder on the same
 * input, which throws its exact `DecodeError` / `LimitError` (offset, path,
 * message); errors are rare, so the fast path pays nothing for them (a
 * malformed block costs the module's attempt, which stops where the TypeScript
 * decoder stops, plus the TypeScript decoder: 1.16 times the TypeScript decoder
 * alone on the Scrap Mechanic bench blocks cut short by one byte, where both
 * run to the end). A result is only returned when it is exactly what the
 * TypeScript decoder returns.
 *
 * Not reentrant, and it needs not be: the call copies the block into the
 * module's memory, runs the module (which calls nothing back) and copies the
 * output out before returning, so no other decode can run in between, a decode
 * started from inside another decoder's work included.
 */
import { LZ4_WASM_BASE64 } from './lz4-wasm.bytes.js';

/** Where the block goes in the module's memory (below: the module's tables). */
const SRC = 512;
/** Bytes at the end of memory that the module's 16-byte copies may scribble on. */
const SLACK = 64;
/**
 * Larger blocks go to the TypeScript decoder: with at most 4 MiB of input every
 * length the module sums (at most 255 output bytes per input byte) and every
 * address stays far below 2^31.
 */
const MAX_BLOCK = 4 << 20;
/** Memory kept between calls; an instance that grew past it is dropped after its call. */
const KEEP = 4 << 20;

interface Lz4Wasm {
  memory: WebAssembly.Memory;
  decode: (n: number, out: number, limitEnd: number) => number;
  /** View of `memory.buffer`, renewed when memory grows (the old buffer is then detached: length 0). */
  u8: Uint8Array;
}

/** The compiled module: undefined before the first try, null when WebAssembly is unavailable. */
let compiled: WebAssembly.Module | null | undefined;
/** The instance in use (one per thread); undefined until needed, or after it grew past KEEP. */
let instance: Lz4Wasm | undefined;
let enabled = true;

function fromBase64(s: string): Uint8Array<ArrayBuffer> {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

function load(): Lz4Wasm | undefined {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(fromBase64(LZ4_WASM_BASE64));
    } catch {
      compiled = null; // no WebAssembly, or no SIMD / bulk memory: TypeScript from now on
    }
  }
  if (compiled === null) return undefined;
  try {
    const ex = new WebAssembly.Instance(compiled, {}).exports as { memory: WebAssembly.Memory; decode: Lz4Wasm['decode'] };
    return { memory: ex.memory, decode: ex.decode, u8: new Uint8Array(ex.memory.buffer) };
  } catch {
    compiled = null;
    return undefined;
  }
}

/** Grows the instance's memory to at least `bytes`; its new view, or undefined (instance dropped) when memory cannot grow. */
function grow(w: Lz4Wasm, bytes: number): Uint8Array | undefined {
  try {
    w.memory.grow(Math.ceil((bytes - w.memory.buffer.byteLength) / 65536));
  } catch {
    instance = undefined;
    return undefined;
  }
  w.u8 = new Uint8Array(w.memory.buffer);
  return w.u8;
}

/**
 * Decode one raw LZ4 block with the WebAssembly module, with the semantics of
 * `decodeLz4Block(src, maxOutput, expectedSize)`. Returns `undefined` when the
 * TypeScript decoder must decide instead: the block is malformed or over a
 * limit (it then throws the exact error), WebAssembly is unavailable or
 * switched off, or the call is outside what the module handles (blocks over
 * 4 MiB, limits that are not whole numbers).
 */
export function decodeLz4Wasm(src: Uint8Array, maxOutput: number, expectedSize: number | undefined): Uint8Array | undefined {
  if (!enabled) return undefined;
  const n = src.length;
  if (n === 0 || n > MAX_BLOCK) return undefined;
  if (!(Number.isInteger(maxOutput) || maxOutput === Infinity) || maxOutput < 0) return undefined;
  // No block of n bytes decodes to more than 255 * n bytes, so capping the limit
  // there changes no outcome (and keeps every address below 2^31).
  let limit: number;
  if (expectedSize === undefined) {
    limit = Math.min(maxOutput, n * 255);
  } else {
    if (!Number.isInteger(expectedSize) || expectedSize < 0 || expectedSize > maxOutput || expectedSize > n * 255) return undefined;
    limit = expectedSize;
  }
  const w = (instance ??= load());
  if (w === undefined) return undefined;
  const out = (SRC + n + 15) & ~15;
  // room for the block and a first guess of the output (memory is kept between
  // calls, so after the first calls it is mostly there already)
  let room = Math.min(limit, 4 * n + 1024);
  let u8: Uint8Array | undefined = w.u8.length < out + room + SLACK ? grow(w, out + room + SLACK) : w.u8;
  if (u8 === undefined) return undefined;
  u8.set(src, SRC);
  let r = w.decode(n, out, out + limit);
  while (r === -2) {
    // the output needs more memory than there is (and stays within the limit):
    // four times the room, and decode again (memory.grow keeps the block)
    room = Math.min(limit, 4 * Math.max(room, u8.length - out));
    u8 = grow(w, out + room + SLACK);
    if (u8 === undefined) return undefined;
    r = w.decode(n, out, out + limit);
  }
  if (u8.length > KEEP) instance = undefined;
  if (r < 0 || (expectedSize !== undefined && r !== expectedSize)) return undefined;
  if (r > POOL_MAX) return u8.slice(out, out + r);
  // small outputs are views of a shared pool (each region handed out once, never
  // written again): no backing store of its own per call, a third of a 3 KiB
  // block's time
  if (poolAt + r > POOL_SIZE) {
    pool = new Uint8Array(POOL_SIZE);
    poolAt = 0;
  }
  const at = poolAt;
  pool.set(u8.subarray(out, out + r), at);
  poolAt = (at + r + 7) & ~7;
  return new Uint8Array(pool.buffer, at, r);
}

/** Outputs of at most POOL_MAX bytes are carved from a POOL_SIZE pool (a kept output keeps at most that alive). */
const POOL_SIZE = 64 * 1024;
const POOL_MAX = 8 * 1024;
let pool = new Uint8Array(POOL_SIZE);
let poolAt = 0;

/**
 * For tests and benches: switch the WebAssembly path off (`false`: every call
 * takes the TypeScript decoder) or on again, and forget the compiled module so
 * that the next call tries WebAssembly afresh.
 */
export function setLz4Wasm(on: boolean): void {
  enabled = on;
  compiled = undefined;
  instance = undefined;
}

/** Whether calls take the WebAssembly path here (compiles the module if not yet done). */
export function lz4WasmActive(): boolean {
  if (!enabled) return false;
  instance ??= load();
  return instance !== undefined;
}

/** For tests: the byte length of the kept instance's memory (0 when none is kept). */
export function lz4WasmMemoryBytes(): number {
  return instance === undefined ? 0 : instance.memory.buffer.byteLength;
}

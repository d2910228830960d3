/**
 * JSON form of decoded values: bigint → decimal string, Uint8Array → hex, floats that
 * JSON cannot hold → strings (`"-0"`, `"NaN"`, `"Infinity"`, `"-Infinity"`), undefined
 * fields dropped, and every float32 as the shortest decimal that reads back as the same
 * float32 (`0.72`, not `0.7200000286102295`). The encoders read this form back to the
 * same bits (writing a float32 rounds to nearest).
 */
import { toHex } from '../../core/hex.js';

/**
 * The shortest decimal (as a number) that rounds to the float32 `v`. Every
 * non-integer number in a decoded Scrap Mechanic value is a float32 (or a float16,
 * which a float32 holds exactly); integers print as they are.
 */
export function shortestF32(v: number): number {
  if (Number.isInteger(v) || Math.fround(v) !== v) return v;
  for (let p = 1; p <= 9; p++) {
    const s = Number(v.toPrecision(p));
    if (Math.fround(s) === v) return s;
  }
  return v;
}

export function toJson(v: unknown): unknown {
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return Object.is(v, -0) ? '-0' : shortestF32(v);
    return String(v);
  }
  if (v === null || typeof v !== 'object') return typeof v === 'bigint' ? v.toString() : v;
  if (v instanceof Uint8Array) return toHex(v);
  if (Array.isArray(v)) return v.map(toJson);
  const o: Record<string, unknown> = {};
  for (const k in v) {
    const x = (v as Record<string, unknown>)[k];
    if (x !== undefined) o[k] = toJson(x);
  }
  return o;
}

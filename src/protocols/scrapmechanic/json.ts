/**
 * JSON form of decoded values: bigint → decimal string, Uint8Array → hex, floats that
 * JSON cannot hold → strings (`"-0"`, `"NaN"`, `"Infinity"`, `"-Infinity"`), undefined
 * fields dropped, and every float32 as the shortest decimal that reads back as the same
 * float32 (`0.72`, not `0.7200000286102295`). The encoders read this form back to the
 * same bits (writing a float32 rounds to nearest).
 */
import { shortestF32 } from '../../core/floats.js';
import { toHex } from '../../core/hex.js';

export function toJson(v: unknown): unknown {
  if (typeof v === 'number') {
    // (every non-integer number in a decoded Scrap Mechanic value is a float32, or a float16, which a float32 holds
    // exactly; integers, which may be ids or counts, and any other number print as they are)
    if (Number.isFinite(v)) return Object.is(v, -0) ? '-0' : Number.isInteger(v) || Math.fround(v) !== v ? v : shortestF32(v);
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

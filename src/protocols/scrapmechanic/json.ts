/**
 * JSON form of decoded values: bigint → decimal string, Uint8Array → hex, floats that
 * JSON cannot hold → strings (`"-0"`, `"NaN"`, `"Infinity"`, `"-Infinity"`), undefined
 * fields dropped. The encoders read this form back.
 */
import { toHex } from '../../core/hex.js';

export function toJson(v: unknown): unknown {
  if (typeof v === 'number') {
    if (Number.isFinite(v)) return Object.is(v, -0) ? '-0' : v;
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

import { toHex } from './hex.js';

/**
 * Convert a decoded value into plain JSON data following the project's
 * conventions: bigint as a decimal string, `Uint8Array` as lower-case hex,
 * `Map` as an object, `undefined` fields dropped. Families that need other
 * forms (GUIDs as `0x` hex) convert those fields before calling this.
 */
export function toJsonValue(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Uint8Array) return toHex(v);
  if (Array.isArray(v)) return v.map(toJsonValue);
  if (ArrayBuffer.isView(v)) return Array.from(v as unknown as ArrayLike<number>);
  if (v instanceof Map) {
    const o: Record<string, unknown> = {};
    for (const [k, x] of v) o[String(k)] = toJsonValue(x);
    return o;
  }
  if (v !== null && typeof v === 'object') {
    const o: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) if (x !== undefined) o[k] = toJsonValue(x);
    return o;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  return v;
}

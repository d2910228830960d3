/**
 * Comparing a decoded record with the JSON an encoder was given, leaf by leaf (the hostile-JSON properties: whatever
 * an encoder accepts, its decoder reads back as given).
 */

import { f32ToBits } from '../../src/core/floats.js';

/** A leaf as a number: a number, or a string a family prints numbers as (`-0`, `NaN`, `Infinity`, decimals). */
export function num(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^(-?[0-9.e+-]+|-0|NaN|-?Infinity)$/.test(v)) return Number(v);
  return undefined;
}

/** A decoded leaf `y` reads back the input leaf `x` (float32-rounded, UUID case and dashes, u64 as text). */
export function sameLeaf(x: unknown, y: unknown): boolean {
  if (JSON.stringify(x) === JSON.stringify(y)) return true;
  // a float32 printed as its bits (`f32:0x80000000` for -0): the input number's float32 bits
  const bits = typeof y === 'string' ? /^f32:0x([0-9a-f]{8})$/.exec(y) : null;
  if (bits !== null && typeof x === 'number') return f32ToBits(x) === Number.parseInt(bits[1]!, 16);
  const nx = num(x);
  const ny = num(y);
  if (nx !== undefined && ny !== undefined && (Object.is(Math.fround(nx), Math.fround(ny)) || Object.is(nx, ny))) return true;
  if (typeof x === 'string' && typeof y === 'string' && x.replace(/-/g, '').toLowerCase() === y.replace(/-/g, '').toLowerCase()) return true;
  if (typeof y === 'string' && /^[0-9]+$/.test(y) && (typeof x === 'number' || typeof x === 'string') && /^[0-9]+$/.test(String(x)))
    return BigInt(String(x)) === BigInt(y);
  // an integer printed in hex (a guid, a mask): the input as a safe integer, a decimal or a hex string
  if (
    typeof y === 'string' &&
    /^0x[0-9a-f]+$/i.test(y) &&
    ((typeof x === 'number' && Number.isSafeInteger(x) && x >= 0) || (typeof x === 'string' && /^(0x[0-9a-f]+|\d+)$/i.test(x)))
  )
    return BigInt(x) === BigInt(y);
  return false;
}

export function at(v: unknown, path: string): unknown {
  let cur = v;
  for (const s of path.match(/[^.[\]]+/g) ?? []) cur = cur === null || typeof cur !== 'object' ? undefined : (cur as Record<string, unknown>)[s];
  return cur;
}

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

/**
 * A short, bounded excerpt of any value for error messages: at most `max`
 * characters, never recursive on the input's depth, never walks more than a
 * few dozen nodes (a 200,000-element array or a value nested 100,000 deep gives
 * a short line, not a stack overflow or a 400 KB message).
 */
export function excerpt(v: unknown, max = 80): string {
  let out = '';
  let budget = 64; // nodes visited at most
  // an explicit stack of what is left to print: values, or literal text
  const stack: Array<{ text: string } | { value: unknown }> = [{ value: v }];
  while (stack.length > 0 && out.length <= max) {
    const top = stack.pop()!;
    if ('text' in top) {
      out += top.text;
      continue;
    }
    const x = top.value;
    if (budget-- <= 0) {
      out += '…';
      break;
    }
    if (typeof x === 'string') out += JSON.stringify(x.length > max ? `${x.slice(0, max)}…` : x);
    else if (typeof x === 'bigint') out += `${x}n`;
    else if (x === undefined) out += 'undefined';
    else if (typeof x === 'number' || typeof x === 'boolean' || x === null) out += String(x);
    else if (typeof x === 'function' || typeof x === 'symbol') out += `<${typeof x}>`;
    else if (x instanceof Uint8Array) out += `<${x.length} bytes>`;
    else if (Array.isArray(x)) {
      const n = Math.min(x.length, 8);
      stack.push({ text: x.length > n ? `, … ${x.length - n} more]` : ']' });
      for (let i = n - 1; i >= 0; i--) {
        stack.push({ value: x[i] });
        if (i > 0) stack.push({ text: ',' });
      }
      out += '[';
    } else {
      const keys = Object.keys(x as object);
      const n = Math.min(keys.length, 8);
      stack.push({ text: keys.length > n ? `, … ${keys.length - n} more}` : '}' });
      for (let i = n - 1; i >= 0; i--) {
        stack.push({ value: (x as Record<string, unknown>)[keys[i]!] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:` });
      }
      out += '{';
    }
  }
  return out.length > max ? `${out.slice(0, max)}…` : out;
}

/**
 * Conversion between user-facing values and raw values (see schema.ts), and
 * raw equality. Floats become integer bits here and nowhere else.
 */
import { EncodeError } from '../core/errors.js';
import { quantSteps, type AnyEntityDef, type Field, type FieldInfo } from './schema.js';

/** Scratch views for float <-> bits; owned by one converter instance, not the module. */
export class FloatBits {
  private readonly f32 = new Float32Array(1);
  private readonly u32a = new Uint32Array(this.f32.buffer);
  private readonly f64 = new Float64Array(1);
  private readonly u32b = new Uint32Array(this.f64.buffer);
  private readonly le = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

  f32Bits(v: number): number {
    this.f32[0] = v;
    return this.u32a[0]!;
  }
  f32Value(bits: number): number {
    this.u32a[0] = bits;
    return this.f32[0]!;
  }
  f64Bits(v: number): [number, number] {
    this.f64[0] = v;
    return this.le ? [this.u32b[1]!, this.u32b[0]!] : [this.u32b[0]!, this.u32b[1]!];
  }
  f64Value(raw: readonly [number, number]): number {
    if (this.le) {
      this.u32b[1] = raw[0];
      this.u32b[0] = raw[1];
    } else {
      this.u32b[0] = raw[0];
      this.u32b[1] = raw[1];
    }
    return this.f64[0]!;
  }
}

const INT_RANGE: Record<string, [number, number]> = {
  u8: [0, 0xff],
  u16: [0, 0xffff],
  u32: [0, 0xffffffff],
  i8: [-0x80, 0x7f],
  i16: [-0x8000, 0x7fff],
  i32: [-0x80000000, 0x7fffffff],
  varint: [-Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
};

const utf8 = new TextEncoder();

/** UTF-8 byte length of a string (without allocating for ASCII). */
export function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else return utf8.encode(s).length;
  }
  return n;
}

/** User value → raw, validating it. Throws EncodeError with the field path. */
export function toRaw(f: Field<unknown>, v: unknown, path: string, fb: FloatBits): unknown {
  switch (f.kind) {
    case 'bool':
      if (typeof v !== 'boolean') throw new EncodeError(path, `expected a boolean, got ${typeof v}`);
      return v ? 1 : 0;
    case 'u8':
    case 'u16':
    case 'u32':
    case 'i8':
    case 'i16':
    case 'i32':
    case 'varint': {
      const [lo, hi] = INT_RANGE[f.kind]!;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new EncodeError(path, `expected an integer ${lo}..${hi}, got ${String(v)}`);
      return v === 0 ? 0 : v; // -0 -> 0
    }
    case 'f32':
      if (typeof v !== 'number') throw new EncodeError(path, `expected a number, got ${typeof v}`);
      return fb.f32Bits(v);
    case 'f64':
      if (typeof v !== 'number') throw new EncodeError(path, `expected a number, got ${typeof v}`);
      return fb.f64Bits(v);
    case 'quantized': {
      if (typeof v !== 'number' || Number.isNaN(v)) throw new EncodeError(path, `expected a number, got ${String(v)}`);
      const k = Math.round((v - f.min!) / f.step!);
      return Math.min(quantSteps(f), Math.max(0, k)); // clamped to [min, max]
    }
    case 'string':
      if (typeof v !== 'string') throw new EncodeError(path, `expected a string, got ${typeof v}`);
      if (utf8Length(v) > f.maxLength!) throw new EncodeError(path, `string longer than ${f.maxLength} UTF-8 bytes`);
      if (hasLoneSurrogate(v)) throw new EncodeError(path, 'string has a lone surrogate (not UTF-8 encodable)');
      return v;
    case 'bytes':
      if (!(v instanceof Uint8Array)) throw new EncodeError(path, 'expected a Uint8Array');
      if (v.length > f.maxLength!) throw new EncodeError(path, `more than ${f.maxLength} bytes`);
      // a copy of the caller's bytes, as a plain Uint8Array (a Node Buffer's slice() is a view of its memory)
      return new Uint8Array(v);
    case 'ref':
      if (v === null) return 0;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 1 || v > 0xffffffff)
        throw new EncodeError(path, `expected an entity id or null, got ${String(v)}`);
      return v;
    case 'array': {
      if (!Array.isArray(v)) throw new EncodeError(path, 'expected an array');
      if (v.length > f.maxLength!) throw new EncodeError(path, `more than ${f.maxLength} elements`);
      // (an index loop: `map` skips the holes of a sparse array, which would reach the encoder unchecked)
      const out = new Array<unknown>(v.length);
      for (let i = 0; i < v.length; i++) out[i] = toRaw(f.element!, v[i], `${path}[${i}]`, fb);
      return out;
    }
  }
}

function hasLoneSurrogate(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) i++;
      else return true;
    } else if (c >= 0xdc00 && c <= 0xdfff) return true;
  }
  return false;
}

/** Raw → user value. */
export function fromRaw(f: Field<unknown>, raw: unknown, fb: FloatBits): unknown {
  switch (f.kind) {
    case 'bool':
      return raw === 1;
    case 'f32':
      return fb.f32Value(raw as number);
    case 'f64':
      return fb.f64Value(raw as [number, number]);
    case 'quantized':
      return f.min! + (raw as number) * f.step!;
    case 'ref':
      return raw === 0 ? null : raw;
    case 'bytes':
      // the user's own copy, a plain Uint8Array (whatever the raw is: a Buffer's slice() would be a view)
      return new Uint8Array(raw as Uint8Array);
    case 'array':
      return (raw as unknown[]).map((x) => fromRaw(f.element!, x, fb));
    default:
      return raw;
  }
}

/** Raw equality (bit equality for floats, content equality for bytes and arrays). */
export function rawEq(f: Field<unknown>, a: unknown, b: unknown): boolean {
  if (a === b) return true;
  switch (f.kind) {
    case 'f64': {
      const x = a as [number, number];
      const y = b as [number, number];
      return x[0] === y[0] && x[1] === y[1];
    }
    case 'bytes': {
      const x = a as Uint8Array;
      const y = b as Uint8Array;
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
      return true;
    }
    case 'array': {
      const x = a as unknown[];
      const y = b as unknown[];
      if (x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!rawEq(f.element!, x[i], y[i])) return false;
      return true;
    }
    default:
      return false;
  }
}

/** User values object of an entity from its raws. */
export function valuesOf(def: AnyEntityDef, raw: readonly unknown[], fb: FloatBits): Record<string, unknown> {
  const o: Record<string, unknown> = {};
  const list = def.list;
  for (let i = 0; i < list.length; i++) o[list[i]!.name] = fromRaw(list[i]!.f, raw[i], fb);
  return o;
}

/** Write user values into a raw array (in place), validating. Returns true when something changed. */
export function assignRaw(def: AnyEntityDef, raw: unknown[], values: Record<string, unknown>, fb: FloatBits): boolean {
  let changed = false;
  for (const name in values) {
    const fi: FieldInfo | undefined = def.byName.get(name);
    if (fi === undefined) throw new EncodeError(`${def.name}.${name}`, `no field ${name} in ${def.name}`);
    const r = toRaw(fi.f, values[name], `${def.name}.${name}`, fb);
    if (!rawEq(fi.f, raw[fi.index], r)) {
      raw[fi.index] = r;
      changed = true;
    }
  }
  return changed;
}

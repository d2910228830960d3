/**
 * Replication schema: field builders (`t.*`), entity definitions with inferred
 * value types, the JSON form of a schema and its 32-bit hash.
 *
 * Internally every field value has a *raw* form that the engine stores and
 * compares; floats are kept as integer bits so that no value ever passes
 * through float arithmetic (NaN payloads, -0 and infinities survive):
 *
 * | kind                  | raw                                    |
 * |-----------------------|----------------------------------------|
 * | bool                  | 0 or 1                                 |
 * | u8 … i32, varint      | the integer                            |
 * | ref                   | 0 for null, else the entity id          |
 * | f32                   | uint32 bit pattern                     |
 * | f64                   | `[hi, lo]` uint32 halves of the bits   |
 * | quantized             | integer number of steps above `min`    |
 * | string                | the string                             |
 * | bytes                 | a Uint8Array (a copy; never mutated)   |
 * | array                 | an array of element raws               |
 */
import { EncodeError } from '../core/errors.js';
import { excerpt } from '../core/json.js';

export type FieldKind = 'bool' | 'u8' | 'u16' | 'u32' | 'i8' | 'i16' | 'i32' | 'varint' | 'f32' | 'f64' | 'quantized' | 'string' | 'bytes' | 'ref' | 'array';
/** Every field kind (the type makes the list complete: a kind added to FieldKind must be added here). */
const FIELD_KINDS: Readonly<Record<FieldKind, true>> = {
  bool: true,
  u8: true,
  u16: true,
  u32: true,
  i8: true,
  i16: true,
  i32: true,
  varint: true,
  f32: true,
  f64: true,
  quantized: true,
  string: true,
  bytes: true,
  ref: true,
  array: true,
};

/** A field builder. `T` is the user-facing value type, `K` its kind. */
export interface Field<T, K extends FieldKind = FieldKind> {
  readonly kind: K;
  /** quantized: lowest value, highest value, step. */
  readonly min?: number;
  readonly max?: number;
  readonly step?: number;
  /** string / bytes: maximum UTF-8 or byte length. array: maximum element count. */
  readonly maxLength?: number;
  /** array: the element field. */
  readonly element?: Field<unknown>;
  /** Visible only to the entity's owner (see `ReplicationServer.spawn`). */
  readonly ownerOnly: boolean;
  /** The same field, visible only to the entity's owner. */
  owner(): Field<T, K>;
  /** Phantom: the value type. */
  readonly __type?: T;
}

type Elem = Field<boolean> | Field<number> | Field<string> | Field<Uint8Array> | Field<number | null>;

function field<T, K extends FieldKind = FieldKind>(kind: K, extra: Partial<Field<T>> = {}, ownerOnly = false): Field<T, K> {
  const f = {
    kind,
    ...extra,
    ownerOnly,
    owner: () => field<T, K>(kind, extra, true),
  } as Field<T, K>;
  return Object.freeze(f);
}

function checkMax(n: number, what: string, limit: number): number {
  if (!Number.isInteger(n) || n < 0 || n > limit) throw new EncodeError('', `${what} must be an integer 0..${limit}, got ${n}`);
  return n;
}

/** Field builders. */
export const t = Object.freeze({
  bool: (): Field<boolean> => field('bool'),
  u8: (): Field<number, 'u8'> => field('u8'),
  u16: (): Field<number, 'u16'> => field('u16'),
  u32: (): Field<number, 'u32'> => field('u32'),
  i8: (): Field<number, 'i8'> => field('i8'),
  i16: (): Field<number, 'i16'> => field('i16'),
  i32: (): Field<number, 'i32'> => field('i32'),
  /** Any safe integer (|n| ≤ 2^53 - 1). */
  varint: (): Field<number> => field('varint'),
  /** Float32, bit-exact (NaN payloads, -0, infinities). */
  f32: (): Field<number, 'f32'> => field('f32'),
  /** Float64, bit-exact. */
  f64: (): Field<number> => field('f64'),
  /** A float in [min, max] sent as a whole number of `step`s; decoded within step / 2. */
  quantized: (min: number, max: number, step: number): Field<number> => {
    if (!Number.isFinite(min) || !Number.isFinite(max) || !Number.isFinite(step) || step <= 0 || max < min) {
      throw new EncodeError('', `quantized(${min}, ${max}, ${step}): need finite min <= max and step > 0`);
    }
    if (Math.round((max - min) / step) > 2 ** 30) throw new EncodeError('', `quantized(${min}, ${max}, ${step}): more than 2^30 steps`);
    return field('quantized', { min, max, step });
  },
  string: (maxBytes: number): Field<string> => field('string', { maxLength: checkMax(maxBytes, 'string maxBytes', 65535) }),
  bytes: (maxBytes: number): Field<Uint8Array> => field('bytes', { maxLength: checkMax(maxBytes, 'bytes maxBytes', 65535) }),
  /** Another entity's id, or null. */
  ref: (): Field<number | null> => field('ref'),
  array: <E extends Elem>(element: E, maxLength: number): Field<Array<NonNullable<E['__type']> | Extract<E['__type'], null>>> => {
    if (element.kind === 'array') throw new EncodeError('', 'arrays of arrays are not supported');
    if (element.ownerOnly) throw new EncodeError('', 'mark the array owner-only, not its element');
    return field('array', { element: element as Field<unknown>, maxLength: checkMax(maxLength, 'array maxLength', 65535) });
  },
});

// biome-ignore lint/suspicious/noExplicitAny: public type: with Field<any>, ValuesOf<Fields> (the values of a definition typed only as AnyEntityDef, e.g. from schemaFromJson, and of ReplicationServer/ReplicationClient's default Defs) is any; Field<unknown> would make those exported value types unknown
export type Fields = Record<string, Field<any>>;
/** The value type of an entity with fields `F`. */
export type ValuesOf<F extends Fields> = { [K in keyof F]: F[K] extends Field<infer T> ? T : never };

/** A compiled field: position, codec parameters. */
export interface FieldInfo {
  readonly name: string;
  readonly index: number;
  readonly f: Field<unknown>;
  readonly kind: FieldKind;
  readonly ownerOnly: boolean;
  /** Raw default (what a creation is coded against). */
  readonly defaultRaw: unknown;
}

export interface EntityDef<N extends string = string, F extends Fields = Fields> {
  readonly name: N;
  readonly fields: F;
  /** Fields in definition order. */
  readonly list: readonly FieldInfo[];
  readonly byName: ReadonlyMap<string, FieldInfo>;
  readonly hasOwnerFields: boolean;
  /** Raw values of a fresh entity. */
  readonly defaults: readonly unknown[];
}

export type AnyEntityDef = EntityDef<string, Fields>;

const NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * A field name must match NAME_RE and not be `__proto__`: values objects are plain objects, where assigning
 * `__proto__` sets the prototype instead of a property (the field would vanish from every values object and from
 * the schema JSON read back). Other names of Object.prototype (`constructor`, `toString`, ...) become own
 * properties and work.
 */
function checkFieldName(path: string, n: string): void {
  if (!NAME_RE.test(n)) throw new EncodeError(path, `field name ${excerpt(n)} must match ${NAME_RE}`);
  if (n === '__proto__') throw new EncodeError(path, 'field name "__proto__" is not allowed (a values object cannot hold it)');
}

/** Define an entity type. Field order is part of the schema (and of its hash). */
export function defineEntity<N extends string, F extends Fields>(name: N, fields: F): EntityDef<N, F> {
  if (!NAME_RE.test(name)) throw new EncodeError('', `entity name ${excerpt(name)} must match ${NAME_RE}`);
  const names = Object.keys(fields);
  if (names.length > 255) throw new EncodeError(name, 'at most 255 fields');
  const list: FieldInfo[] = names.map((n, index) => {
    checkFieldName(name, n);
    const f = fields[n]!;
    // (JavaScript callers: a field that is not a builder's result is an EncodeError, not a TypeError further on)
    const kind = typeof f === 'object' && f !== null ? (f as { kind?: unknown }).kind : undefined;
    if (typeof kind !== 'string' || !Object.hasOwn(FIELD_KINDS, kind))
      throw new EncodeError(`${name}.${n}`, 'is not a field (make it with t.u8(), t.f32(), t.string(n), ...)');
    return Object.freeze({ name: n, index, f, kind: f.kind, ownerOnly: f.ownerOnly, defaultRaw: defaultRaw(f) });
  });
  return Object.freeze({
    name,
    fields,
    list,
    byName: new Map(list.map((x) => [x.name, x])),
    hasOwnerFields: list.some((x) => x.ownerOnly),
    defaults: Object.freeze(list.map((x) => x.defaultRaw)),
  });
}

/** Number of quantization steps of a quantized field (its raw range is 0..steps). */
export function quantSteps(f: Field<unknown>): number {
  return Math.round((f.max! - f.min!) / f.step!);
}

export function defaultRaw(f: Field<unknown>): unknown {
  switch (f.kind) {
    case 'f64':
      return ZERO64;
    case 'quantized':
      return Math.min(quantSteps(f), Math.max(0, Math.round((0 - f.min!) / f.step!)));
    case 'string':
      return '';
    case 'bytes':
      return EMPTY_BYTES;
    case 'array':
      return EMPTY_ARRAY;
    default:
      return 0;
  }
}

const ZERO64: readonly [number, number] = Object.freeze([0, 0]) as readonly [number, number];
const EMPTY_BYTES = new Uint8Array(0);
const EMPTY_ARRAY: readonly unknown[] = Object.freeze([]);

// ---------------------------------------------------------------------------
// JSON form and hash

export interface FieldJson {
  name: string;
  kind: FieldKind;
  min?: number;
  max?: number;
  step?: number;
  maxLength?: number;
  element?: Omit<FieldJson, 'name'>;
  owner?: true;
}
export interface SchemaJson {
  tickwireReplication: 1;
  entities: { name: string; fields: FieldJson[] }[];
}

function fieldJson(f: Field<unknown>): Omit<FieldJson, 'name'> {
  const j: Omit<FieldJson, 'name'> = { kind: f.kind };
  if (f.kind === 'quantized') Object.assign(j, { min: f.min, max: f.max, step: f.step });
  if (f.maxLength !== undefined) j.maxLength = f.maxLength;
  if (f.element) j.element = fieldJson(f.element);
  if (f.ownerOnly) j.owner = true;
  return j;
}

/** The schema as JSON (for the CLI, the inspector and other-language decoders). Order matters. */
export function schemaToJson(defs: readonly AnyEntityDef[]): SchemaJson {
  return { tickwireReplication: 1, entities: defs.map((d) => ({ name: d.name, fields: d.list.map((x) => ({ name: x.name, ...fieldJson(x.f) })) })) };
}

function fieldFromJson(j: Omit<FieldJson, 'name'>, path: string): Field<unknown> {
  if (typeof j !== 'object' || j === null) throw new EncodeError(path, 'field must be an object');
  let f: Field<unknown>;
  switch (j.kind) {
    case 'bool':
    case 'u8':
    case 'u16':
    case 'u32':
    case 'i8':
    case 'i16':
    case 'i32':
    case 'varint':
    case 'f32':
    case 'f64':
    case 'ref':
      f = (t[j.kind] as () => Field<unknown>)();
      break;
    case 'quantized':
      f = t.quantized(Number(j.min), Number(j.max), Number(j.step));
      break;
    case 'string':
      f = t.string(Number(j.maxLength));
      break;
    case 'bytes':
      f = t.bytes(Number(j.maxLength));
      break;
    case 'array':
      f = t.array(fieldFromJson(j.element!, `${path}.element`) as Elem, Number(j.maxLength));
      break;
    default:
      throw new EncodeError(path, `unknown field kind ${excerpt((j as { kind: unknown }).kind)}`);
  }
  return j.owner === true ? f.owner() : f;
}

/** Rebuild entity definitions from `schemaToJson` output (types are then `Fields`, checked at run time). */
export function schemaFromJson(json: unknown): AnyEntityDef[] {
  const j = json as SchemaJson;
  if (typeof j !== 'object' || j === null || j.tickwireReplication !== 1 || !Array.isArray(j.entities)) {
    throw new EncodeError('', 'not a tickwire replication schema (expected {"tickwireReplication":1,"entities":[...]})');
  }
  const entityNames = new Set<string>();
  return j.entities.map((e: unknown, i) => {
    const at = `entities[${i}]`;
    if (typeof e !== 'object' || e === null) throw new EncodeError(at, 'entity must be an object');
    const { name, fields: list } = e as { name?: unknown; fields?: unknown };
    if (typeof name !== 'string') throw new EncodeError(`${at}.name`, `entity name must be a string, not ${name === null ? 'null' : typeof name}`);
    if (entityNames.has(name)) throw new EncodeError(`${at}.name`, `duplicate entity name ${excerpt(name)}`);
    entityNames.add(name);
    if (!Array.isArray(list)) throw new EncodeError(at, 'fields must be an array');
    const fields: Fields = {};
    const fieldNames = new Set<string>();
    list.forEach((fj: unknown, k) => {
      const fat = `${at}.fields[${k}]`;
      if (typeof fj !== 'object' || fj === null) throw new EncodeError(fat, 'field must be an object');
      const fname = (fj as { name?: unknown }).name;
      if (typeof fname !== 'string') throw new EncodeError(`${fat}.name`, `field name must be a string, not ${fname === null ? 'null' : typeof fname}`);
      // (before the assignment: `fields.__proto__ = ...` would set the prototype, not add a field)
      checkFieldName(`${fat}.name`, fname);
      if (fieldNames.has(fname)) throw new EncodeError(`${fat}.name`, `duplicate field name ${excerpt(fname)} in ${name}`);
      fieldNames.add(fname);
      fields[fname] = fieldFromJson(fj as FieldJson, fat);
    });
    return defineEntity(name, fields);
  });
}

/** FNV-1a over the canonical JSON of the schema: both sides send it, a mismatch is an error. */
export function schemaHash(defs: readonly AnyEntityDef[]): number {
  const s = JSON.stringify(schemaToJson(defs));
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Check a list of definitions passed to a server or client. */
export function checkDefs(defs: readonly AnyEntityDef[]): void {
  if (defs.length === 0) throw new EncodeError('entities', 'at least one entity definition');
  if (defs.length > 65535) throw new EncodeError('entities', 'at most 65535 entity definitions');
  const seen = new Set<string>();
  for (const d of defs) {
    if (seen.has(d.name)) throw new EncodeError('entities', `duplicate entity name ${d.name}`);
    seen.add(d.name);
  }
}

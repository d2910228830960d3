/**
 * Client side: an object store that applies decoded update messages the way
 * the 1.12 client does (§11): creates, values, movement, out-of-range and
 * destroy; objects by guid with typed field access; one event per change.
 */
import { bitsToF32 } from '../../core/floats.js';
import { fieldAt, fieldByName, guidHex, objectType, type FieldDef, type ObjectTypeDef } from './fields.js';
import {
  PackedValues,
  SMSG_DESTROY_OBJECT,
  UpdateFlag,
  type CreateBlock,
  type Movement,
  type ServerPacket,
  type UpdateBlock,
  type UpdateBody,
  type UpdateValues,
} from './types.js';

/** A typed field value: a number (int, float), a bigint (guid), or byte / short tuples; arrays for multi-element fields. */
export type FieldValue = number | bigint | number[] | Array<number | bigint | number[]>;

/** One object as the client knows it. */
export class WowObject {
  readonly guid: bigint;
  readonly typeId: number;
  /** The type definition, undefined for a type id outside 0 … 7. */
  readonly type: ObjectTypeDef | undefined;
  /** Every slot of the type (valuesCount u32s), zero until set. */
  readonly values: Uint32Array;
  /** The movement block of the last create (or MOVEMENT block). */
  movement: Movement;
  /** 2 (CREATE_OBJECT, came into view) or 3 (CREATE_OBJECT2, just spawned). */
  createdBy: 2 | 3;
  /** Slots set or changed by the last block applied to this object, rising. */
  changed: number[] = [];

  constructor(guid: bigint, typeId: number, movement: Movement, createdBy: 2 | 3) {
    this.guid = guid;
    this.typeId = typeId;
    this.type = objectType(typeId);
    this.values = new Uint32Array(this.type?.valuesCount ?? 0);
    this.movement = movement;
    this.createdBy = createdBy;
  }

  /** The field definition for a name (or alias) of this object's chain. */
  fieldDef(name: string): FieldDef | undefined {
    return fieldByName(this.typeId, name);
  }

  private slotOf(name: string | number, element: number, width: number): number {
    if (typeof name === 'number') {
      if (name < 0 || name >= this.values.length) throw new RangeError(`slot ${name} is outside ${this.type?.name ?? 'this type'} (0 … ${this.values.length - 1})`);
      return name;
    }
    const f = fieldByName(this.typeId, name);
    if (f === undefined) throw new RangeError(`${this.type?.name ?? `type ${this.typeId}`} has no field ${name}`);
    const slot = f.index + element * width;
    if (element < 0 || slot + width > f.index + f.size) throw new RangeError(`${name} has no element ${element}`);
    return slot;
  }

  /** Raw u32 of a slot or of a field's element. */
  u32(name: string | number, element = 0): number {
    return this.values[this.slotOf(name, element, 1)]!;
  }
  /** Signed i32 view of a slot. */
  i32(name: string | number, element = 0): number {
    return this.values[this.slotOf(name, element, 1)]! | 0;
  }
  /** Float view of a slot. */
  float(name: string | number, element = 0): number {
    return bitsToF32(this.values[this.slotOf(name, element, 1)]!);
  }
  /** A 64-bit guid over two slots (element counts guids, low word first). */
  guidAt(name: string | number, element = 0): bigint {
    const s = this.slotOf(name, element, 2);
    return (BigInt(this.values[s + 1] ?? 0) << 32n) | BigInt(this.values[s]!);
  }
  /** Four u8 of a `bytes` slot, byte 0 from the low 8 bits. */
  bytes(name: string | number, element = 0): [number, number, number, number] {
    const v = this.values[this.slotOf(name, element, 1)]!;
    return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
  }
  /** Two u16 of a `two_shorts` slot, first from the low 16 bits. */
  shorts(name: string | number, element = 0): [number, number] {
    const v = this.values[this.slotOf(name, element, 1)]!;
    return [v & 0xffff, v >>> 16];
  }

  /** A field typed through the table: one value, or an array for multi-element fields. */
  get(name: string): FieldValue {
    const f = fieldByName(this.typeId, name);
    if (f === undefined) throw new RangeError(`${this.type?.name ?? `type ${this.typeId}`} has no field ${name}`);
    return typedField(this.values, f);
  }

  /** Every field with a non-zero slot, typed, by name (slots no field covers as `slotN`). */
  fields(): Record<string, FieldValue> {
    return typedFields(this.typeId, this.values);
  }
}

function typedElement(values: Uint32Array, f: FieldDef, slot: number): number | bigint | number[] {
  const v = values[slot] ?? 0;
  switch (f.type) {
    case 'float':
      return bitsToF32(v);
    case 'guid':
      return (BigInt(values[slot + 1] ?? 0) << 32n) | BigInt(v);
    case 'bytes':
      return [v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24];
    case 'two_shorts':
      return [v & 0xffff, v >>> 16];
    default:
      return v;
  }
}

/** A field's typed value from a values array. */
export function typedField(values: Uint32Array, f: FieldDef): FieldValue {
  const width = f.type === 'guid' ? 2 : 1;
  const n = f.size / width;
  if (n <= 1) return typedElement(values, f, f.index);
  const out: Array<number | bigint | number[]> = [];
  for (let i = 0; i < n; i++) out.push(typedElement(values, f, f.index + i * width));
  return out;
}

/** Non-zero fields of a values array, typed and named through the table. */
export function typedFields(typeId: number, values: Uint32Array): Record<string, FieldValue> {
  const out: Record<string, FieldValue> = {};
  for (let s = 0; s < values.length; s++) {
    if (values[s] === 0) continue;
    const f = fieldAt(typeId, s);
    if (f === undefined) {
      out[`slot${s}`] = values[s]!;
      continue;
    }
    out[f.name] = typedField(values, f);
    s = f.index + f.size - 1;
  }
  return out;
}

export type StoreEvent =
  | { kind: 'create'; guid: bigint; object: WowObject; updateType: 2 | 3; replaced: boolean; block: number }
  | { kind: 'values'; guid: bigint; object: WowObject; changed: number[]; block: number }
  | { kind: 'movement'; guid: bigint; object: WowObject; block: number }
  | { kind: 'remove'; guid: bigint; object: WowObject; reason: 'outOfRange' | 'destroy'; block: number }
  | { kind: 'near'; guids: bigint[]; block: number }
  | { kind: 'problem'; guid?: bigint; message: string; block: number };

export interface StoreOptions {
  /** VALUES / MOVEMENT blocks for a guid the store does not know: `'report'` (a problem event, default) or `'ignore'`. */
  unknownGuid?: 'report' | 'ignore';
  /** Slots at or above the type's values count: `'report'` (default) or `'drop'` silently; never stored either way. */
  extraSlots?: 'report' | 'drop';
}

/** Applies decoded messages to a map of objects by guid (§11). */
export class ObjectStore {
  readonly objects = new Map<bigint, WowObject>();
  /** `hasTransport` of the last applied body. */
  hasTransport = 0;
  private readonly listeners: Array<(e: StoreEvent) => void> = [];
  private readonly opts: Required<StoreOptions>;

  constructor(opts: StoreOptions = {}) {
    this.opts = { unknownGuid: opts.unknownGuid ?? 'report', extraSlots: opts.extraSlots ?? 'report' };
  }

  /** Listen to every event as it happens. Returns a function that removes the listener. */
  on(fn: (e: StoreEvent) => void): () => void {
    this.listeners.push(fn);
    return () => {
      const i = this.listeners.indexOf(fn);
      if (i >= 0) this.listeners.splice(i, 1);
    };
  }

  get(guid: bigint): WowObject | undefined {
    return this.objects.get(guid);
  }

  /** Object type of a known guid (for naming VALUES slots). */
  typeOf = (guid: bigint): number | undefined => this.objects.get(guid)?.typeId;

  get size(): number {
    return this.objects.size;
  }

  /** Apply a decoded server packet; returns the events it caused, in order. */
  apply(p: ServerPacket): StoreEvent[] {
    if (p.opcode === SMSG_DESTROY_OBJECT) {
      const out: StoreEvent[] = [];
      this.remove(p.guid, 'destroy', -1, out);
      return out;
    }
    return this.applyBody(p.body);
  }

  /** Apply an update body; returns the events it caused, in order. */
  applyBody(body: UpdateBody): StoreEvent[] {
    const out: StoreEvent[] = [];
    this.hasTransport = body.hasTransport;
    for (let i = 0; i < body.blocks.length; i++) this.applyBlock(body.blocks[i]!, i, out);
    return out;
  }

  private emit(out: StoreEvent[], e: StoreEvent): void {
    out.push(e);
    for (const l of this.listeners) l(e);
  }

  private remove(guid: bigint, reason: 'outOfRange' | 'destroy', block: number, out: StoreEvent[]): void {
    const o = this.objects.get(guid);
    if (o === undefined) return; // repeated removals (split packets) are ignored
    this.objects.delete(guid);
    this.emit(out, { kind: 'remove', guid, object: o, reason, block });
  }

  /** Apply one block (`block` is its index, for events). */
  applyBlock(b: UpdateBlock, block: number, out: StoreEvent[] = []): StoreEvent[] {
    switch (b.updateType) {
      case 0: {
        const o = this.objects.get(b.guid);
        if (o === undefined) {
          if (this.opts.unknownGuid === 'report') this.emit(out, { kind: 'problem', guid: b.guid, message: `VALUES for unknown object ${guidHex(b.guid)}`, block });
          return out;
        }
        o.changed = this.setValues(o, b.values, block, out);
        this.emit(out, { kind: 'values', guid: b.guid, object: o, changed: o.changed, block });
        return out;
      }
      case 1: {
        const o = this.objects.get(b.guid);
        if (o === undefined) {
          if (this.opts.unknownGuid === 'report') this.emit(out, { kind: 'problem', guid: b.guid, message: `MOVEMENT for unknown object ${guidHex(b.guid)}`, block });
          return out;
        }
        o.movement = b.movement;
        o.changed = [];
        this.emit(out, { kind: 'movement', guid: b.guid, object: o, block });
        return out;
      }
      case 2:
      case 3:
        this.create(b, block, out);
        return out;
      case 4:
        for (const g of b.guids) this.remove(g, 'outOfRange', block, out);
        return out;
      case 5:
        this.emit(out, { kind: 'near', guids: b.guids, block });
        return out;
    }
  }

  private create(b: CreateBlock, block: number, out: StoreEvent[]): void {
    const replaced = this.objects.has(b.guid);
    const o = new WowObject(b.guid, b.objectTypeId, b.movement, b.updateType);
    if (o.type === undefined) this.emit(out, { kind: 'problem', guid: b.guid, message: `unknown object type ${b.objectTypeId}`, block });
    this.objects.set(b.guid, o);
    o.changed = this.setValues(o, b.values, block, out);
    this.emit(out, { kind: 'create', guid: b.guid, object: o, updateType: b.updateType, replaced, block });
  }

  private setValues(o: WowObject, v: UpdateValues, block: number, out: StoreEvent[]): number[] {
    const changed: number[] = [];
    const dst = o.values;
    const limit = dst.length;
    // mask words then values in one array when the block came from the decoder
    let words: Uint32Array;
    let n: number;
    if (v instanceof PackedValues) {
      words = v.words;
      n = v.blockCount;
    } else {
      n = v.mask.length;
      words = new Uint32Array(n + v.values.length);
      words.set(v.mask);
      words.set(v.values, n);
    }
    let k = n;
    let extra = 0;
    for (let i = 0; i < n; i++) {
      let w = words[i]!;
      while (w !== 0) {
        const bit = 31 - Math.clz32(w & -w);
        w &= w - 1;
        const slot = 32 * i + bit;
        const val = words[k++]!;
        if (slot < limit) {
          dst[slot] = val;
          changed.push(slot);
        } else extra++;
      }
    }
    if (extra > 0 && this.opts.extraSlots === 'report') {
      this.emit(out, { kind: 'problem', guid: o.guid, message: `${extra} slot(s) at or above the values count ${limit} of ${o.type?.name ?? `type ${o.typeId}`} were dropped`, block });
    }
    return changed;
  }

  /**
   * Consistency checks (§11): OBJECT_FIELD_GUID equals the object's guid,
   * OBJECT_FIELD_TYPE equals the type mask of its type, SELF on at most one object.
   */
  validate(): string[] {
    const problems: string[] = [];
    const selves: bigint[] = [];
    for (const o of this.objects.values()) {
      if (o.type === undefined) continue;
      const g = o.guidAt(0);
      if (g !== o.guid) problems.push(`${guidHex(o.guid)}: OBJECT_FIELD_GUID is ${guidHex(g)}`);
      if (o.values[2] !== o.type.typeMask) problems.push(`${guidHex(o.guid)}: OBJECT_FIELD_TYPE is 0x${(o.values[2] ?? 0).toString(16)}, expected 0x${o.type.typeMask.toString(16)} for ${o.type.name}`);
      if ((o.movement.updateFlags & UpdateFlag.SELF) !== 0) selves.push(o.guid);
    }
    if (selves.length > 1) problems.push(`SELF is set on ${selves.length} objects: ${selves.map(guidHex).join(', ')}`);
    return problems;
  }

  /** Forget everything. */
  clear(): void {
    this.objects.clear();
    this.hasTransport = 0;
  }
}


/**
 * Client side: an object store that applies decoded update messages the way
 * the 1.12 client does (§11): creates, values, movement, out-of-range and
 * destroy; objects by guid with typed field access; one event per change.
 */
import { bitsToF32 } from '../../core/floats.js';
import { DecodeError, LimitError, refusalAsDecodeError } from '../../core/errors.js';
import { checkBody, fromDecoder } from './body.js';
import { checkGuid } from './guid.js';
import type { ClientMirror, MirrorChanges, MirroredEntity, MirrorIssue } from '../../core/mirror.js';
import { OBJECT_TYPES } from './tables/update-fields.js';
import { fieldAt, fieldByName, guidHex, objectType, type FieldDef, type ObjectTypeDef } from './fields.js';
import { floatToJson } from './json.js';
import { GuidMap } from './guid-map.js';
import { resolveWowLimits, type WowLimits } from './limits.js';
import { moveRecordBound, moveRecordWords, readMoveRecord, writeMoveRecord } from './move-record.js';
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

/**
 * Object values are carved out of 64 KiB slabs: one allocation for a dozen
 * players or eighty creatures instead of one each (allocation and garbage
 * collection of many small typed arrays were most of the cost of applying
 * creates). A slab is released when its last object is removed; the store
 * counts the bytes of every slab still in use against `wowMaxStoreBytes`.
 */
export class ValueSlab {
  static readonly WORDS = 1 << 14;
  readonly words = new Uint32Array(ValueSlab.WORDS);
  /** The same memory as floats (movement records, see move-record.ts). */
  readonly floats = new Float32Array(this.words.buffer);
  used = 0;
  live = 0;
}

/** The set bits of mask words below `limit`, rising. */
function slotsOf(mask: Uint32Array, limit: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < mask.length; i++) {
    for (let w = mask[i]!; w !== 0; w &= w - 1) {
      const slot = 32 * i + 31 - Math.clz32(w & -w);
      if (slot < limit) out.push(slot);
    }
  }
  return out;
}

/** One object as the client knows it. */
export class WowObject {
  readonly guid: bigint;
  readonly typeId: number;
  /** The type definition, undefined for a type id outside 0 … 7. */
  readonly type: ObjectTypeDef | undefined;
  /** Number of slots (the type's values count). */
  readonly slotCount: number;
  /** 2 (CREATE_OBJECT, came into view) or 3 (CREATE_OBJECT2, just spawned). */
  createdBy: 2 | 3;
  /** The slab the values live in (store bookkeeping), if any. */
  slab: ValueSlab | undefined;
  /** Where the values live: `store[at … at + slotCount)` (a slab's words, or an array of the object's own). */
  readonly store: Uint32Array;
  readonly at: number;
  #values: Uint32Array | undefined = undefined;
  #changed: number[] | undefined = undefined;
  /** Offset in `store` of the mask words of the last create (-1: none); the slot list is made on first use of `changed`. */
  #maskAt = -1;
  #maskLen = 0;
  #movement: Movement | undefined;
  /** Offset in `store` of the movement kept as a record (-1: none; see move-record.ts). */
  #moveAt: number;
  /** Store bookkeeping: the bytes `movementBytes` counted for a movement kept as an object (outside the slab), 0 for none. */
  moveBytes = 0;

  /**
   * Values in `store` at `at` (zeroed, `valuesCount` long, mask room after them) may be given by the object store;
   * so may the movement, as a record at `store[moveAt …]` (then `movement` is not used).
   */
  constructor(guid: bigint, typeId: number, movement: Movement | undefined, createdBy: 2 | 3, store?: Uint32Array, at = 0, moveAt = -1) {
    this.guid = guid;
    this.typeId = typeId;
    this.type = objectType(typeId);
    this.slotCount = this.type?.valuesCount ?? 0;
    this.store = store ?? new Uint32Array(this.slotCount);
    this.at = at;
    this.#movement = movement;
    this.#moveAt = moveAt;
    this.createdBy = createdBy;
  }

  /** The movement block of the last create (or MOVEMENT block). */
  get movement(): Movement {
    let m = this.#movement;
    if (m === undefined) {
      if (this.#moveAt < 0) throw new Error(`no movement for ${guidHex(this.guid)}`);
      m = this.#movement = readMoveRecord(this.store, this.#moveAt);
    }
    return m;
  }
  set movement(m: Movement) {
    this.#movement = m;
    this.#moveAt = -1;
  }

  /** Every slot of the type (valuesCount u32s), zero until set. */
  get values(): Uint32Array {
    return (this.#values ??= this.at === 0 && this.store.length === this.slotCount ? this.store : this.store.subarray(this.at, this.at + this.slotCount));
  }

  /** Slots set or changed by the last block applied to this object, rising. */
  get changed(): number[] {
    let c = this.#changed;
    if (c === undefined) {
      c = this.#changed = this.#maskAt < 0 ? [] : slotsOf(this.store.subarray(this.#maskAt, this.#maskAt + this.#maskLen), this.slotCount);
      this.#maskAt = -1;
    }
    return c;
  }
  set changed(slots: number[]) {
    this.#changed = slots;
    this.#maskAt = -1;
  }

  /** The mask of the last create is at `store[maskAt … maskAt + len)`; `changed` lists its slots when asked. */
  changedByMask(maskAt: number, len: number): void {
    this.#maskAt = maskAt;
    this.#maskLen = len;
    this.#changed = undefined;
  }

  /** The field definition for a name (or alias) of this object's chain. */
  fieldDef(name: string): FieldDef | undefined {
    return fieldByName(this.typeId, name);
  }

  private slotOf(name: string | number, element: number, width: number): number {
    if (typeof name === 'number') {
      if (name < 0 || name >= this.values.length)
        throw new RangeError(`slot ${name} is outside ${this.type?.name ?? 'this type'} (0 … ${this.values.length - 1})`);
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
  /** `wowMaxObjects` and `wowMaxStoreBytes` (defaults in `WOW_LIMITS`): a message that would create (or move, with a spline) past them is a `LimitError`, applied not at all. */
  limits?: Partial<Pick<WowLimits, 'wowMaxObjects' | 'wowMaxStoreBytes'>>;
  /** VALUES / MOVEMENT blocks for a guid the store does not know: `'report'` (a problem event, default) or `'ignore'`. */
  unknownGuid?: 'report' | 'ignore';
  /** Slots at or above the type's values count: `'report'` (default) or `'drop'` silently; never stored either way. */
  extraSlots?: 'report' | 'drop';
  /**
   * Check every body `applyBody` is given, also those `decodeBody` / `decodePacket` returned (default false: those
   * were checked as they were read, and are applied as they are). For a caller that changes decoded bodies before
   * applying them: a changed body the encoder would refuse is then a DecodeError, and nothing is applied. Checking
   * costs about a quarter more on decode + apply.
   */
  checkDecoded?: boolean;
}

/**
 * Applies decoded messages to a map of objects by guid (§11). As a
 * `ClientMirror` (`apply`, `entityIds`, `entity`) it speaks the vocabulary
 * every family shares: ids are guids as `0x` + 16 hex digits (the inspector's
 * ids), `updated` maps an object to the names of the fields that changed.
 * `applyEvents` / `applyBody` give the detailed events instead.
 */
export class ObjectStore implements ClientMirror<ServerPacket> {
  /** The objects by guid (a `GuidMap`: a `Map` that hashes a guid without the runtime's bigint hashing). */
  readonly objects: Map<bigint, WowObject>;
  private readonly table: GuidMap<WowObject>;
  /** `hasTransport` of the last applied body. */
  hasTransport = 0;
  /** Bytes of values held (4 per slot of every object). */
  valueBytes = 0;
  /** Bytes of memory behind the values: slabs still in use, objects too large for a slab, and movement blocks kept outside the slabs (spline nodes; what `wowMaxStoreBytes` bounds). */
  storeBytes = 0;
  private slab: ValueSlab | undefined;
  private readonly listeners: Array<(e: StoreEvent) => void> = [];
  private readonly opts: Required<Omit<StoreOptions, 'limits' | 'checkDecoded'>>;
  private readonly checkDecoded: boolean;
  private readonly maxObjects: number;
  private readonly maxBytes: number;

  constructor(opts: StoreOptions = {}) {
    this.objects = this.table = new GuidMap<WowObject>();
    this.opts = { unknownGuid: opts.unknownGuid ?? 'report', extraSlots: opts.extraSlots ?? 'report' };
    this.checkDecoded = opts.checkDecoded === true;
    const limits = resolveWowLimits(opts.limits);
    this.maxObjects = limits.wowMaxObjects;
    this.maxBytes = limits.wowMaxStoreBytes;
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

  /** Apply a decoded server packet; returns what changed (the `ClientMirror` contract). */
  apply(p: ServerPacket): MirrorChanges {
    return mirrorChanges(this.applyEvents(p));
  }

  /**
   * Apply a server packet (as `decodePacket` gives it, or one made or changed by the caller); returns the events it
   * caused, in order. A packet the encoder would refuse is a DecodeError naming what (see applyBody).
   */
  applyEvents(p: ServerPacket): StoreEvent[] {
    if (p === null || typeof p !== 'object') throw new DecodeError(0, '', 'a server packet', typeof p);
    if (p.opcode === SMSG_DESTROY_OBJECT) {
      try {
        checkGuid(p.guid, 'guid');
      } catch (e) {
        throw refusalAsDecodeError(e);
      }
      const out: StoreEvent[] = [];
      this.remove(p.guid, 'destroy', -1, out);
      return out;
    }
    return this.applyBody(p.body);
  }

  /**
   * Apply an update body; returns the events it caused, in order. Nothing is applied past a store limit
   * (`LimitError`), or when the body is not one the decoder returned and the encoder would refuse it (a
   * DecodeError naming the first thing, at byte 0: a caller-made body has no bytes), so that a wrong object
   * cannot leave the store half changed or hold what no packet could carry. A body as the decoder returned it
   * is not checked again (see fromDecoder): one the caller has changed since is applied as it is, unless the
   * store was made with `checkDecoded`.
   */
  applyBody(body: UpdateBody): StoreEvent[] {
    if (this.checkDecoded || !fromDecoder(body)) {
      try {
        checkBody(body, SHAPE_ONLY);
      } catch (e) {
        throw refusalAsDecodeError(e);
      }
    }
    this.checkRoom(body);
    const out: StoreEvent[] = [];
    this.hasTransport = body.hasTransport;
    for (let i = 0; i < body.blocks.length; i++) this.applyBlock(body.blocks[i]!, i, out);
    return out;
  }

  /**
   * Refuse a body whose creates of new objects would pass `wowMaxObjects`, or whose creates and MOVEMENT blocks
   * would pass `wowMaxStoreBytes` (removals in it, and the movements MOVEMENT blocks replace, are not counted).
   */
  private checkRoom(body: UpdateBody): void {
    const blocks = body.blocks;
    // spline nodes of every movement in the body: kept outside the slabs when large (a spline may have 65,536 points, 768 KiB)
    let nodeBytes = 0;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      if (b.updateType === 1 || b.updateType === 2 || b.updateType === 3) nodeBytes += splineBytes(b.movement);
    }
    // every block a create of a new object of the largest cost: far from the limits, nothing to count
    if (
      this.objects.size + blocks.length <= this.maxObjects &&
      this.storeBytes + 4 * ValueSlab.WORDS + blocks.length * MAX_CREATE_COST + nodeBytes <= this.maxBytes
    )
      return;
    // then without looking guids up, every create counted as a new object and every MOVEMENT block as applied (an upper bound):
    // when that fits, the exact count below fits too; otherwise the exact count finds the error
    let bound = this.objects.size;
    let boundBytes = this.storeBytes + 4 * ValueSlab.WORDS;
    for (let i = 0; i < blocks.length; i++) {
      const b = blocks[i]!;
      if (b.updateType === 1) boundBytes += movementBytes(b.movement);
      if (b.updateType !== 2 && b.updateType !== 3) continue;
      boundBytes += createCost(b);
      bound++;
    }
    if (bound <= this.maxObjects && boundBytes <= this.maxBytes) return;
    let objects = this.objects.size;
    // at worst every new object opens a slab of its own's worth: count its values, plus the slab in hand
    let bytes = this.storeBytes + 4 * ValueSlab.WORDS;
    let created: Set<bigint> | undefined;
    for (const b of body.blocks) {
      if (b.updateType === 1) {
        // a MOVEMENT block is applied to an object held, or created earlier in the body
        if (this.objects.has(b.guid) || created?.has(b.guid) === true) bytes += movementBytes(b.movement);
      } else if (b.updateType === 2 || b.updateType === 3) {
        const held = this.objects.get(b.guid);
        bytes += createCost(b);
        if (held === undefined) objects++; // a guid created twice in one body counts twice: an upper bound
        (created ??= new Set()).add(b.guid);
        if (objects > this.maxObjects) throw new LimitError(0, 'blocks', 'wowMaxObjects', objects, this.maxObjects);
      } else continue;
      if (bytes > this.maxBytes) throw new LimitError(0, 'blocks', 'wowMaxStoreBytes', bytes, this.maxBytes);
    }
  }

  /** Guids held, as `0x` + 16 hex digits. */
  *entityIds(): IterableIterator<string> {
    for (const g of this.objects.keys()) yield guidHex(g);
  }

  /** One object's type name and its fields (position, then every non-zero field in slot order), JSON-ready. */
  entity(id: string): MirroredEntity | undefined {
    if (!/^0x[0-9a-fA-F]{1,16}$/.test(id)) return undefined;
    const o = this.objects.get(BigInt(id));
    if (o === undefined) return undefined;
    return { type: o.type?.name ?? `type ${o.typeId}`, fields: objectFields(o) };
  }

  private emit(out: StoreEvent[], e: StoreEvent): void {
    out.push(e);
    for (const l of this.listeners) l(e);
  }

  private remove(guid: bigint, reason: 'outOfRange' | 'destroy', block: number, out: StoreEvent[]): void {
    const h = this.table.hash(guid);
    const o = this.table.getHashed(guid, h);
    if (o === undefined) return; // repeated removals (split packets) are ignored
    this.table.deleteHashed(guid, h);
    this.release(o);
    this.emit(out, { kind: 'remove', guid, object: o, reason, block });
  }

  /** Apply one block (`block` is its index, for events). */
  applyBlock(b: UpdateBlock, block: number, out: StoreEvent[] = []): StoreEvent[] {
    switch (b.updateType) {
      case 0: {
        const o = this.objects.get(b.guid);
        if (o === undefined) {
          if (this.opts.unknownGuid === 'report')
            this.emit(out, { kind: 'problem', guid: b.guid, message: `VALUES for unknown object ${guidHex(b.guid)}`, block });
          return out;
        }
        o.changed = this.setValues(o, b.values, block, out, false)!;
        this.emit(out, { kind: 'values', guid: b.guid, object: o, changed: o.changed, block });
        return out;
      }
      case 1: {
        const o = this.objects.get(b.guid);
        if (o === undefined) {
          if (this.opts.unknownGuid === 'report')
            this.emit(out, { kind: 'problem', guid: b.guid, message: `MOVEMENT for unknown object ${guidHex(b.guid)}`, block });
          return out;
        }
        const m = ownMovement(b.movement);
        const n = movementBytes(m);
        this.storeBytes += n - o.moveBytes;
        o.moveBytes = n;
        o.movement = m;
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

  /**
   * A new object, its values in the current slab (or an array of its own when larger than a quarter slab).
   * A decoded movement block goes to the slab too, as a record after the values and the mask room.
   */
  private newObject(b: CreateBlock): WowObject {
    const t = objectType(b.objectTypeId);
    const n = t?.valuesCount ?? 0;
    this.valueBytes += 4 * n;
    // values, then room for the create's mask words (its `changed` list, made on first use)
    let words = n + (t?.maskBlocks ?? 0);
    if (t === undefined || words > QUARTER_SLAB) {
      const m = ownMovement(b.movement);
      const o = new WowObject(b.guid, b.objectTypeId, m, b.updateType);
      o.moveBytes = movementBytes(m);
      this.storeBytes += 4 * n + o.moveBytes;
      return o;
    }
    // only the decoder's blocks (packed values): the record gives back the decoder's object, key for key
    const moveWords = b.values instanceof PackedValues ? moveRecordWords(b.movement, QUARTER_SLAB - words) : -1;
    const moveAt = moveWords < 0 ? -1 : words;
    if (moveWords > 0) words += moveWords;
    let slab = this.slab;
    if (slab === undefined || slab.used + words > ValueSlab.WORDS) {
      if (slab !== undefined && slab.live === 0) this.storeBytes -= 4 * ValueSlab.WORDS;
      slab = this.slab = new ValueSlab();
      this.storeBytes += 4 * ValueSlab.WORDS;
    }
    const at = slab.used;
    let o: WowObject;
    if (moveAt < 0) {
      const m = ownMovement(b.movement);
      o = new WowObject(b.guid, b.objectTypeId, m, b.updateType, slab.words, at);
      o.moveBytes = movementBytes(m);
      this.storeBytes += o.moveBytes;
    } else {
      writeMoveRecord(b.movement, slab.words, slab.floats, at + moveAt);
      o = new WowObject(b.guid, b.objectTypeId, undefined, b.updateType, slab.words, at, at + moveAt);
    }
    slab.used += words;
    slab.live++;
    o.slab = slab;
    return o;
  }

  /** Book-keeping when an object leaves the store. */
  private release(o: WowObject): void {
    this.valueBytes -= 4 * o.slotCount;
    this.storeBytes -= o.moveBytes;
    o.moveBytes = 0;
    const slab = o.slab;
    if (slab === undefined) {
      this.storeBytes -= 4 * o.slotCount;
      return;
    }
    o.slab = undefined;
    if (--slab.live === 0 && slab !== this.slab) this.storeBytes -= 4 * ValueSlab.WORDS;
  }

  private create(b: CreateBlock, block: number, out: StoreEvent[]): void {
    const h = this.table.hash(b.guid);
    const held = this.table.getHashed(b.guid, h);
    const replaced = held !== undefined;
    if (held !== undefined) this.release(held);
    const o = this.newObject(b);
    if (o.type === undefined) this.emit(out, { kind: 'problem', guid: b.guid, message: `unknown object type ${b.objectTypeId}`, block });
    this.table.setHashed(b.guid, h, o);
    this.setValues(o, b.values, block, out, true);
    this.emit(out, { kind: 'create', guid: b.guid, object: o, updateType: b.updateType, replaced, block });
  }

  /**
   * Copy the values of a block into the object. For a create the mask words go
   * to the room after the values (when the object has such room) and
   * `changed` is made from them on first use; otherwise the changed slots are returned.
   */
  private setValues(o: WowObject, v: UpdateValues, block: number, out: StoreEvent[], create: boolean): number[] | undefined {
    const dst = o.store;
    const base = o.at;
    const limit = o.slotCount;
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
    for (let i = 0, at = base; i < n; i++, at += 32) {
      let w = words[i]! | 0;
      if (w === 0) continue;
      if (32 * i + 32 <= limit) {
        // the whole word inside the type: no slot check
        do {
          dst[at + 31 - Math.clz32(w & -w)] = words[k++]!;
          w &= w - 1;
        } while (w !== 0);
        continue;
      }
      do {
        const slot = 32 * i + 31 - Math.clz32(w & -w);
        w &= w - 1;
        const val = words[k++]!;
        if (slot < limit) dst[base + slot] = val;
        else extra++;
      } while (w !== 0);
    }
    if (extra > 0 && this.opts.extraSlots === 'report') {
      this.emit(out, {
        kind: 'problem',
        guid: o.guid,
        message: `${extra} slot(s) at or above the values count ${limit} of ${o.type?.name ?? `type ${o.typeId}`} were dropped`,
        block,
      });
    }
    if (!create) return slotsOf(words.subarray(0, n), limit);
    const room = o.slab === undefined ? 0 : (o.type?.maskBlocks ?? 0);
    if (n <= room) {
      for (let i = 0; i < n; i++) dst[base + limit + i] = words[i]!;
      o.changedByMask(base + limit, n);
    } else o.changed = slotsOf(words.subarray(0, n), limit);
    return undefined;
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
      if (o.values[2] !== o.type.typeMask)
        problems.push(
          `${guidHex(o.guid)}: OBJECT_FIELD_TYPE is 0x${(o.values[2] ?? 0).toString(16)}, expected 0x${o.type.typeMask.toString(16)} for ${o.type.name}`,
        );
      if ((o.movement.updateFlags & UpdateFlag.SELF) !== 0) selves.push(o.guid);
    }
    if (selves.length > 1) problems.push(`SELF is set on ${selves.length} objects: ${selves.map(guidHex).join(', ')}`);
    return problems;
  }

  /** Forget everything. */
  clear(): void {
    this.objects.clear();
    this.valueBytes = 0;
    this.storeBytes = 0;
    this.slab = undefined;
    this.hasTransport = 0;
  }
}

const QUARTER_SLAB = ValueSlab.WORDS >>> 2;

/**
 * An upper bound of the bytes of store memory a create takes: values, mask
 * room and movement record in a slab (a slab may leave up to a quarter unused
 * at its end: counted at 4/3), or values of its own when larger than a quarter
 * slab; and the movement's `movementBytes` when it is kept as an object (as
 * `newObject` decides: an unknown type, values of their own, a movement
 * not of the decoder's shape or needing more than the slab room).
 */
function createCost(b: CreateBlock): number {
  const t = objectType(b.objectTypeId);
  if (t === undefined) return movementBytes(b.movement);
  const n = t.valuesCount;
  const words = n + t.maskBlocks;
  if (words > QUARTER_SLAB) return 4 * n + movementBytes(b.movement);
  const inSlab = b.values instanceof PackedValues && moveRecordWords(b.movement, QUARTER_SLAB - words) >= 0;
  const slabCost = Math.ceil((16 * Math.min(words + moveRecordBound(b.movement), QUARTER_SLAB)) / 3);
  return inSlab ? slabCost : slabCost + movementBytes(b.movement);
}

/**
 * Bytes a movement block kept as an object is counted for: its spline nodes
 * (12 a point, up to `wowMaxSplinePoints`), plus MOVEMENT_OVERHEAD for the
 * objects around them.
 */
function movementBytes(m: Movement): number {
  return MOVEMENT_OVERHEAD + splineBytes(m);
}

/** Bytes of the spline nodes of a movement (0 without a spline). */
function splineBytes(m: Movement): number {
  const nodes = m?.spline?.nodes;
  return ArrayBuffer.isView(nodes) ? nodes.byteLength : 0;
}

/** Bytes counted for the objects of a movement kept as an object, besides its spline nodes (movement, info, speeds, spline, arrays: a few hundred bytes). */
const MOVEMENT_OVERHEAD = 512;

/** The largest `createCost` of any create, spline nodes aside (a movement record is counted up to a quarter slab); also bounds a MOVEMENT block's. */
const MAX_CREATE_COST = Math.max(Math.ceil((16 * QUARTER_SLAB) / 3), ...OBJECT_TYPES.map((t) => 4 * t.valuesCount)) + MOVEMENT_OVERHEAD;

/** A movement block the store may keep: spline nodes copied out of the decoder's body-wide word pool (so that a kept object does not hold its whole message). */
function ownMovement(m: Movement): Movement {
  const sp = m.spline;
  if (sp === undefined || sp.nodes.byteLength === sp.nodes.buffer.byteLength) return m;
  return { ...m, spline: { ...sp, nodes: sp.nodes.slice() } };
}

function jsonField(v: FieldValue, isFloat: boolean): unknown {
  if (typeof v === 'bigint') return guidHex(v);
  if (typeof v === 'number') return isFloat ? floatToJson(v) : v;
  return v.map((x) => jsonField(x as FieldValue, isFloat));
}

/** An object's fields, JSON-ready: `position` (from the movement block), then every non-zero field in slot order. */
export function objectFields(o: WowObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const m = o.movement;
  const pos = m.movementInfo ?? m.position;
  if (pos !== undefined) out.position = { x: floatToJson(pos.x), y: floatToJson(pos.y), z: floatToJson(pos.z), o: floatToJson(pos.o) };
  for (const [k, v] of Object.entries(typedFields(o.typeId, o.values))) {
    const f = k.startsWith('slot') ? undefined : o.fieldDef(k);
    out[k] = jsonField(v, f?.type === 'float');
  }
  return out;
}

/** Names of the fields covering `slots` (`slotN` where no field does). */
export function slotFieldNames(o: WowObject, slots: Iterable<number>): string[] {
  const names = new Set<string>();
  for (const s of slots) names.add(fieldAt(o.typeId, s)?.name ?? `slot${s}`);
  return [...names];
}

/**
 * The encoder's checks without its size limits (a decoder may have been given larger ones; the store's own are
 * `wowMaxObjects` and `wowMaxStoreBytes`): what applyBody checks a body for.
 */
const SHAPE_ONLY: Readonly<WowLimits> = { ...resolveWowLimits(), wowMaxBlocks: Infinity, wowMaxSplinePoints: Infinity, maxArrayLength: Infinity };

/** The shared `MirrorChanges` of a list of store events. */
export function mirrorChanges(events: readonly StoreEvent[]): MirrorChanges {
  const created = new Set<bigint>();
  const changed = new Map<bigint, { o: WowObject; slots: Set<number>; moved: boolean }>();
  const removed: string[] = [];
  const issues: MirrorIssue[] = [];
  for (const e of events) {
    switch (e.kind) {
      case 'create':
        created.add(e.guid);
        changed.delete(e.guid);
        break;
      case 'values':
      case 'movement': {
        if (created.has(e.guid)) break;
        let c = changed.get(e.guid);
        if (c === undefined) changed.set(e.guid, (c = { o: e.object, slots: new Set(), moved: false }));
        if (e.kind === 'values') for (const s of e.changed) c.slots.add(s);
        else c.moved = true;
        break;
      }
      case 'remove':
        removed.push(guidHex(e.guid));
        created.delete(e.guid);
        changed.delete(e.guid);
        break;
      case 'problem': {
        const kind = e.message.startsWith('unknown object type') ? 'unknown-type' : e.message.includes('unknown object') ? 'unknown-entity' : 'dropped-slots';
        const issue: MirrorIssue = { kind, message: e.block >= 0 ? `blocks[${e.block}]: ${e.message}` : e.message };
        if (e.guid !== undefined) issue.id = guidHex(e.guid);
        issues.push(issue);
        break;
      }
      default:
        break;
    }
  }
  const updated = new Map<string, string[]>();
  for (const [g, c] of changed) {
    const names = slotFieldNames(c.o, c.slots);
    if (c.moved) names.unshift('position');
    updated.set(guidHex(g), names);
  }
  return { created: [...created].map(guidHex), updated, removed, issues };
}

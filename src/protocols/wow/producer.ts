/**
 * Server side: the update builder of §9. Given one observer (the client's
 * player), the objects it should see this tick and what its client was last
 * sent, it emits what a MaNGOS server would: the OUT_OF_RANGE block first,
 * creates for newly visible objects (every non-zero visible field), VALUES
 * blocks for changed visible fields (both halves of a changed 64-bit field),
 * split before the client's 32 KiB limit (§8) and compressed above the
 * threshold (§7).
 */
import { EncodeError } from '../../core/errors.js';
import { ByteWriter } from '../../core/writer.js';
import type { Producer } from '../../core/mirror.js';
import { f32ToBits } from '../../core/floats.js';
import { encodeDestroy, encodeUpdatePacket, writeUpdateBlock, type WowEncodeOptions } from './codec.js';
import { GuidMap } from './guid-map.js';
import { checkGuid } from './guid.js';
import { checkU } from './movement.js';
import { excerpt } from '../../core/json.js';
import { fieldByName, guidPartners, objectType, slotVisibility, VISIBILITY } from './fields.js';
import { PooledValues, TypeId, UpdateFlag, type Movement, type UpdateBlock, type UpdateBody } from './types.js';

/** An object in the world as the server holds it. */
export interface WorldObject {
  guid: bigint;
  typeId: number;
  /** Every slot of the type (valuesCount u32s), as stored this tick. */
  values: Uint32Array;
  /** Movement block sent in creates (SELF is set or cleared per observer). */
  movement: Movement;
  /** True while the object is being spawned: creates are CREATE_OBJECT2 (§9.3). */
  spawned?: boolean;
  /** Owner (item owner, pet owner or charmer, caster): receives `owner_only` fields. */
  owner?: bigint;
}

/**
 * Refuse, before anything is built or remembered, a visible object that is not one (an EncodeError naming it):
 * a u64 guid (and owner), a type id of a byte, and its values a Uint32Array. Its movement and slots are checked
 * as its blocks are written.
 */
function checkWorldObject(o: WorldObject, n: number): void {
  if (o === null || typeof o !== 'object') throw new EncodeError(`visible[${n}]`, `expected a world object, got ${excerpt(o)}`);
  checkGuid(o.guid, `visible[${n}].guid`);
  if (o.owner !== undefined) checkGuid(o.owner, `visible[${n}].owner`);
  checkU(o.typeId, 0xff, `visible[${n}].typeId`);
  if (!(o.values instanceof Uint32Array)) throw new EncodeError(`visible[${n}].values`, `expected a Uint32Array of the type's slots, got ${excerpt(o.values)}`);
}

/** One observer (a player's client) and what its client currently holds. */
export interface Observer {
  /** The observer's own player guid. */
  guid: bigint;
  /** Objects known at the client, with the values last sent (per-observer, filtered). Updated by the builder. */
  known: Map<bigint, Uint32Array>;
  /** Members of the observer's group (receive `group_only` fields of these objects). */
  group?: ReadonlySet<bigint>;
  /** Objects whose `special_info` fields this observer may see (Beast Lore). */
  specialInfo?: ReadonlySet<bigint>;
}

/** A new observer; its `known` is a `GuidMap` (a `Map` that hashes a guid without the runtime's bigint hashing). */
export function newObserver(guid: bigint): Observer {
  return { guid, known: new GuidMap<Uint32Array>() };
}

export interface BuildOptions extends WowEncodeOptions {
  /** Bound of the cmangos size estimate for one uncompressed body (default 32 766, §8). */
  maxBodySize?: number;
  /** Per-observer rewrite of a slot value (§10.2); called for visible slots only. */
  rewrite?: (o: WorldObject, observer: Observer, slot: number, value: number) => number;
  /** `hasTransport` byte: fixed, or `'auto'` (default): 1 when a create in the packet carries the TRANSPORT update flag. */
  hasTransport?: 0 | 1 | 'auto';
}

export interface BuiltUpdate {
  /** Whole server frames, ready to send (header encryption not applied). */
  packets: Uint8Array[];
  /** The uncompressed bodies, one per packet. */
  bodyBytes: Uint8Array[];
  /** The bodies as data, one per packet. */
  bodies: UpdateBody[];
  created: number;
  updated: number;
  removed: number;
}

const GO_DYN_FLAGS = fieldByName(TypeId.GAMEOBJECT, 'GAMEOBJECT_DYN_FLAGS')!.index;
const GO_ANIMPROGRESS = fieldByName(TypeId.GAMEOBJECT, 'GAMEOBJECT_ANIMPROGRESS')!.index;
const GO_TYPE_ID = fieldByName(TypeId.GAMEOBJECT, 'GAMEOBJECT_TYPE_ID')!.index;

/** GO types 11 (TRANSPORT, elevators) and 15 (MO_TRANSPORT, ships). */
function isTransportGo(o: WorldObject): boolean {
  const t = o.values[GO_TYPE_ID];
  return t === 11 || t === 15 || o.guid >> 48n === 0x1fc0n;
}

/** Visibility bits observer `p` passes for object `o` (§10.1). */
export function passedFlags(o: WorldObject, p: Observer): number {
  let f = VISIBILITY.public | VISIBILITY.dynamic;
  if (o.guid === p.guid) f |= VISIBILITY.private;
  if (o.owner !== undefined && o.owner === p.guid) {
    f |= VISIBILITY.owner_only;
    if (o.typeId === TypeId.ITEM || o.typeId === TypeId.CONTAINER) f |= VISIBILITY.unk2;
  }
  if (p.group?.has(o.guid) === true) f |= VISIBILITY.group_only;
  if (p.specialInfo?.has(o.guid) === true) f |= VISIBILITY.special_info;
  return f;
}

/**
 * Per type id, passed visibility bits and side: the runs of slots those bits show (`shown`) or hide, as [start, end)
 * pairs (made once per key).
 */
const RUNS = new Map<number, Int32Array>();

function slotRuns(typeId: number, vis: Uint16Array, f: number, shown: boolean): Int32Array {
  const key = (typeId * 65536 + (f & 0xffff)) * 2 + (shown ? 1 : 0);
  let h = RUNS.get(key);
  if (h === undefined) {
    const runs: number[] = [];
    const on = (s: number): boolean => ((vis[s]! & f) !== 0) === shown;
    for (let s = 0; s < vis.length; s++) {
      if (!on(s)) continue;
      const start = s;
      while (s + 1 < vis.length && on(s + 1)) s++;
      runs.push(start, s + 1);
    }
    RUNS.set(key, (h = Int32Array.from(runs)));
  }
  return h;
}

/**
 * Word arrays carved out of shared buffers of `WordSlab.WORDS` words: one allocation for a
 * dozen or more arrays instead of one each (a player's view takes a quarter) (allocating and collecting thousands of small typed
 * arrays was most of the cost of a build). An array larger than a quarter of a slab gets a
 * buffer of its own. A slab's memory is freed once no array carved from it is alive, so an
 * array kept alone keeps up to `4 × WORDS` bytes alive.
 */
class WordSlab {
  static readonly WORDS = 1 << 14;
  private buf = new ArrayBuffer(4 * WordSlab.WORDS);
  private used = 0;

  take(n: number): Uint32Array {
    if (4 * n > WordSlab.WORDS) return new Uint32Array(n);
    if (this.used + n > WordSlab.WORDS) {
      this.buf = new ArrayBuffer(4 * WordSlab.WORDS);
      this.used = 0;
    }
    const v = new Uint32Array(this.buf, 4 * this.used, n);
    this.used += n;
    return v;
  }
}

/** The views `produce` keeps in `observer.known`. */
const viewSlab = new WordSlab();

/**
 * `produce`'s create of an object new to the observer: its view (kept in `known`) and its
 * create block in one pass over the visible slots (a fresh view is zero, so hidden slots need
 * no write); what `observerView` then `createBlockFor` give. Undefined when that path does not
 * apply (a rewrite hook, values that are not a `Uint32Array`): the caller takes the two steps.
 */
function createWithView(o: WorldObject, p: Observer, rewrite: BuildOptions['rewrite'], views: Uint32Array[]): UpdateBlock | undefined {
  const values = o.values;
  if (rewrite !== undefined || !(values instanceof Uint32Array)) return undefined;
  const vis = slotVisibility(o.typeId);
  if (vis === undefined) throw new EncodeError('typeId', `unknown object type ${o.typeId}`);
  if (values.length !== vis.length) throw new EncodeError('values', `${objectType(o.typeId)!.name} has ${vis.length} slots, got ${values.length}`);
  const t = objectType(o.typeId)!;
  const blocks = t.maskBlocks;
  if (32 * blocks < values.length) return undefined;
  const f = passedFlags(o, p);
  const runs = slotRuns(o.typeId, vis, f, true);
  const view = viewSlab.take(values.length);
  const mask = maskScratch;
  mask.fill(0, 0, blocks);
  let count = 0;
  for (let r = 0; r < runs.length; r += 2) {
    const end = runs[r + 1]!;
    for (let s = runs[r]!; s < end; s++) {
      const v = values[s]!;
      if (v !== 0) {
        view[s] = v;
        mask[s >> 5] = mask[s >> 5]! | (1 << (s & 31));
        count++;
      }
    }
  }
  if (o.typeId === TypeId.GAMEOBJECT && !isTransportGo(o) && view[GO_DYN_FLAGS] === 0 && (vis[GO_DYN_FLAGS]! & f) !== 0) {
    mask[GO_DYN_FLAGS >> 5] = mask[GO_DYN_FLAGS >> 5]! | (1 << (GO_DYN_FLAGS & 31));
    count++;
  }
  views.push(view);
  return createBlockOf(o, p, view, blocks, count);
}

/** The values observer `p` may hold for `o`: visible slots (rewritten), zero elsewhere. */
export function observerView(o: WorldObject, p: Observer, rewrite?: BuildOptions['rewrite']): Uint32Array {
  return viewInto(o, p, rewrite, false);
}

function viewInto(o: WorldObject, p: Observer, rewrite: BuildOptions['rewrite'], slab: boolean): Uint32Array {
  const vis = slotVisibility(o.typeId);
  if (vis === undefined) throw new EncodeError('typeId', `unknown object type ${o.typeId}`);
  if (o.values.length !== vis.length) throw new EncodeError('values', `${objectType(o.typeId)!.name} has ${vis.length} slots, got ${o.values.length}`);
  const f = passedFlags(o, p);
  const values = o.values;
  if (rewrite === undefined && values instanceof Uint32Array) {
    // a copy (one memcpy), then the runs of hidden slots zeroed
    let out: Uint32Array;
    if (slab) (out = viewSlab.take(values.length)).set(values);
    else out = new Uint32Array(values);
    const runs = slotRuns(o.typeId, vis, f, false);
    for (let i = 0; i < runs.length; i += 2) {
      const a = runs[i]!;
      const b = runs[i + 1]!;
      if (b - a > 8) out.fill(0, a, b);
      else for (let s = a; s < b; s++) out[s] = 0;
    }
    return out;
  }
  const out = slab ? viewSlab.take(vis.length) : new Uint32Array(vis.length);
  if (rewrite === undefined) {
    for (let s = 0; s < vis.length; s++) if ((vis[s]! & f) !== 0) out[s] = values[s]!;
  } else {
    for (let s = 0; s < vis.length; s++) if ((vis[s]! & f) !== 0) out[s] = rewrite(o, p, s, values[s]!) >>> 0;
  }
  return out;
}

/** True when the observer's view of `o` differs from `prev` in any slot. */
function viewDiffers(o: WorldObject, p: Observer, prev: Uint32Array, rewrite: BuildOptions['rewrite']): boolean {
  const vis = slotVisibility(o.typeId);
  if (vis === undefined || o.values.length !== vis.length || prev.length !== vis.length) return true;
  const f = passedFlags(o, p);
  const values = o.values;
  for (let s = 0; s < vis.length; s++) {
    const v = (vis[s]! & f) === 0 ? 0 : rewrite === undefined ? values[s]! : rewrite(o, p, s, values[s]!) >>> 0;
    if (v !== prev[s]) return true;
  }
  return false;
}

function maskValues(view: Uint32Array, slots: number[], maskBlocks: number): { mask: Uint32Array; values: Uint32Array } {
  let sorted = true;
  for (let i = 1; i < slots.length && sorted; i++) sorted = slots[i - 1]! < slots[i]!;
  if (!sorted) slots.sort((a, b) => a - b);
  const mask = new Uint32Array(maskBlocks);
  const values = new Uint32Array(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i]!;
    mask[s >> 5] = (mask[s >> 5]! | (1 << (s & 31))) >>> 0;
    values[i] = view[s]!;
  }
  return { mask, values };
}

/** The create block of `o` for observer `p` (§9.4). */
export function createBlockFor(o: WorldObject, p: Observer, view: Uint32Array): UpdateBlock {
  const t = objectType(o.typeId)!;
  const vis = slotVisibility(o.typeId)!;
  // the non-zero slots straight into the mask, then their values in rising slot order
  const blocks = t.maskBlocks;
  const mask = maskScratch;
  mask.fill(0, 0, blocks);
  const limit = Math.min(view.length, 32 * blocks);
  let count = 0;
  for (let s = 0; s < limit; s++) {
    if (view[s] !== 0) {
      mask[s >> 5] = mask[s >> 5]! | (1 << (s & 31));
      count++;
    }
  }
  if (o.typeId === TypeId.GAMEOBJECT && !isTransportGo(o) && view[GO_DYN_FLAGS] === 0 && (vis[GO_DYN_FLAGS]! & passedFlags(o, p)) !== 0) {
    mask[GO_DYN_FLAGS >> 5] = mask[GO_DYN_FLAGS >> 5]! | (1 << (GO_DYN_FLAGS & 31));
    count++;
  }
  return createBlockOf(o, p, view, blocks, count);
}

/** The create block of `o` from its view, the mask words in `maskScratch` and their count of set bits. */
function createBlockOf(o: WorldObject, p: Observer, view: Uint32Array, blocks: number, count: number): UpdateBlock {
  const mask = maskScratch;
  // mask words then values, in the shared block pool
  if (blockPoolUsed + blocks + count > blockPool.length) {
    blockPool = new Uint32Array(Math.max(BLOCK_POOL_WORDS, blocks + count));
    blockPoolUsed = 0;
  }
  const words = blockPool;
  const at = blockPoolUsed;
  blockPoolUsed += blocks + count;
  let k = at + blocks;
  for (let i = 0; i < blocks; i++) {
    const m = mask[i]!;
    words[at + i] = m;
    for (let w = m; w !== 0; w &= w - 1) words[k++] = view[32 * i + 31 - Math.clz32(w & -w)]!;
  }
  const self = o.guid === p.guid;
  const flags = self ? o.movement.updateFlags | UpdateFlag.SELF : o.movement.updateFlags & ~UpdateFlag.SELF;
  const movement = flags === o.movement.updateFlags ? o.movement : { ...o.movement, updateFlags: flags };
  return { updateType: o.spawned === true ? 3 : 2, guid: o.guid, objectTypeId: o.typeId, movement, values: new PooledValues(words, at, blocks, count) };
}

/** Mask words of the create being built (a type has at most 255). */
const maskScratch = new Uint32Array(256);

/** The pool the creates' mask words and values are written to (`PooledValues`); a full pool is left to the blocks that use it. */
const BLOCK_POOL_WORDS = 1 << 14;
let blockPool = new Uint32Array(BLOCK_POOL_WORDS);
let blockPoolUsed = 0;

/** The VALUES block of `o` for `p` against what `p` holds, or undefined when nothing visible changed (§9.5). */
export function valuesBlockFor(o: WorldObject, view: Uint32Array, prev: Uint32Array): UpdateBlock | undefined {
  const partner = guidPartners(o.typeId)!;
  const seen = new Uint8Array(view.length);
  const slots: number[] = [];
  for (let s = 0; s < view.length; s++) {
    if (view[s] === prev[s] || seen[s] === 1) continue;
    seen[s] = 1;
    slots.push(s);
    const q = partner[s]!;
    if (q >= 0 && seen[q] === 0) {
      seen[q] = 1;
      slots.push(q);
    }
  }
  if (slots.length === 0) return undefined;
  if (o.typeId === TypeId.GAMEOBJECT && !isTransportGo(o)) {
    if (seen[GO_DYN_FLAGS] === 0) slots.push(GO_DYN_FLAGS);
    if (seen[GO_ANIMPROGRESS] === 0) slots.push(GO_ANIMPROGRESS);
  }
  return { updateType: 0, guid: o.guid, values: maskValues(view, slots, objectType(o.typeId)!.maskBlocks) };
}

/**
 * The server side (§9) as one object: per observer and tick, `produce` gives
 * the frames a MaNGOS server would send (OUT_OF_RANGE first, creates, VALUES
 * blocks, split under the client's limit, compressed above the threshold) and
 * updates `observer.known`. One producer can serve every observer; it keeps
 * its body writer between calls.
 */
export class UpdateProducer implements Producer<[Observer, Iterable<WorldObject>], BuiltUpdate> {
  private readonly opts: BuildOptions;
  private readonly limit: number;
  /** The body being filled; reused across calls. */
  private readonly w: ByteWriter;

  constructor(opts: BuildOptions = {}) {
    this.opts = opts;
    this.limit = opts.maxBodySize ?? 32766;
    this.w = new ByteWriter(Math.min(this.limit, 1 << 16) + 256);
  }

  /**
   * This tick's update for one observer. `visible` are the objects the
   * observer should see now (its own player included). `observer.known` is
   * updated to what its client will hold once the packets arrive.
   */
  produce(observer: Observer, visible: Iterable<WorldObject>): BuiltUpdate {
    const opts = this.opts;
    // the objects in view, one per guid (the last given wins, at the place of the first)
    const inView = new GuidMap<number>();
    const objs: WorldObject[] = [];
    let n = 0;
    for (const o of visible) {
      checkWorldObject(o, n++);
      const h = inView.hash(o.guid);
      const i = inView.getHashed(o.guid, h);
      if (i === undefined) {
        inView.setHashed(o.guid, h, objs.length);
        objs.push(o);
      } else objs[i] = o;
    }

    const known = observer.known;
    const removed: bigint[] = [];
    for (const g of known.keys()) {
      if (!inView.has(g) && g !== observer.guid) removed.push(g);
    }

    // What the client will hold; applied to `observer.known` only once every packet is built.
    const sentGuids: bigint[] = [];
    const sentViews: Uint32Array[] = [];
    const blocks: UpdateBlock[] = [];
    // a GuidMap `known` (newObserver's): each guid hashed once, for the lookup here and the store below
    const table = known instanceof GuidMap ? (known as GuidMap<Uint32Array>) : undefined;
    const sentHashes: number[] = [];
    const wideAtHash = table?.hashesAllBits === true;
    let created = 0;
    let updated = 0;
    for (let i = 0; i < objs.length; i++) {
      const o = objs[i]!;
      const h = table === undefined ? 0 : table.hash(o.guid);
      const prev = table === undefined ? known.get(o.guid) : table.size === 0 ? undefined : table.getHashed(o.guid, h);
      if (prev === undefined || prev.length !== o.values.length) {
        // new to this client (or known under another type: it needs a create again)
        let b = createWithView(o, observer, opts.rewrite, sentViews);
        if (b === undefined) {
          const view = viewInto(o, observer, opts.rewrite, true);
          b = createBlockFor(o, observer, view);
          sentViews.push(view);
        }
        blocks.push(b);
        sentGuids.push(o.guid);
        sentHashes.push(h);
        created++;
      } else {
        // compare in place first: unchanged objects cost no allocation
        if (!viewDiffers(o, observer, prev, opts.rewrite)) continue;
        const view = observerView(o, observer, opts.rewrite);
        const b = valuesBlockFor(o, view, prev);
        sentGuids.push(o.guid);
        sentHashes.push(h);
        sentViews.push(view);
        if (b === undefined) continue;
        blocks.push(b);
        updated++;
      }
    }
    const out = this.pack(removed, blocks);
    for (const g of removed) known.delete(g);
    if (table === undefined) for (let i = 0; i < sentGuids.length; i++) known.set(sentGuids[i]!, sentViews[i]!);
    else {
      for (let i = 0; i < sentGuids.length; i++) {
        const g = sentGuids[i]!;
        // a hash from before the table went over to hashing all 64 bits (an insert below may do so) is hashed again
        table.setHashed(g, table.hashesAllBits === wideAtHash ? sentHashes[i]! : table.hash(g), sentViews[i]!);
      }
    }
    return { ...out, created, updated, removed: removed.length };
  }

  /** SMSG_DESTROY_OBJECT for one object (the single-object path of §9.2); forgets it for the observer. */
  destroy(observer: Observer, guid: bigint): Uint8Array {
    observer.known.delete(guid);
    return encodeDestroy(guid);
  }

  /** Split blocks into bodies under the cmangos estimate (§8): `128 + 9 × removals + size + block < limit`. */
  private pack(removed: bigint[], blocks: UpdateBlock[]): Omit<BuiltUpdate, 'created' | 'updated' | 'removed'> {
    const { opts, limit, w } = this;
    const bodies: UpdateBody[] = [];
    const bodyBytes: Uint8Array[] = [];
    const packets: Uint8Array[] = [];
    let cur: UpdateBlock[] = [];
    let removals = 0;
    let transport = false;
    w.reset();
    w.u32le(0).u8(0);
    const flush = () => {
      if (cur.length === 0) return;
      const hasTransport = opts.hasTransport === undefined || opts.hasTransport === 'auto' ? (transport ? 1 : 0) : opts.hasTransport;
      w.patchU32le(0, cur.length);
      w.patchU8(4, hasTransport);
      const body = w.finish();
      bodies.push({ hasTransport, blocks: cur });
      bodyBytes.push(body);
      packets.push(encodeUpdatePacket(body, opts));
      cur = [];
      removals = 0;
      transport = false;
      w.reset();
      w.u32le(0).u8(0);
    };
    // OUT_OF_RANGE first, in the first packet; a list too long for one packet is spread over several.
    const perChunk = Math.max(1, Math.floor((limit - 128 - HEADER - 5) / 18));
    for (let i = 0; i < removed.length; i += perChunk) {
      flush();
      const guids = removed.slice(i, i + perChunk);
      const b: UpdateBlock = { updateType: 4, guids };
      writeUpdateBlock(w, b, opts);
      cur.push(b);
      removals = guids.length;
    }
    for (const b of blocks) {
      const before = w.pos;
      writeUpdateBlock(w, b, opts);
      const n = w.pos - before;
      // the cmangos estimate: 128 + 9 × removals + body size with this block must stay under the limit
      if (128 + 9 * removals + w.pos >= limit) {
        if (cur.length === 0 || 128 + HEADER + n >= limit) {
          throw new EncodeError('blocks', `one block of ${n} bytes exceeds the client's limit of ${limit} bytes per body`);
        }
        const bytes = w.written().slice(before);
        w.pos = before;
        flush();
        w.bytes(bytes);
      }
      cur.push(b);
      if ((b.updateType === 2 || b.updateType === 3) && (b.movement.updateFlags & UpdateFlag.TRANSPORT) !== 0) transport = true;
    }
    flush();
    return { packets, bodyBytes, bodies };
  }
}

/** Build this tick's update for one observer (a one-off `UpdateProducer`; see `UpdateProducer.produce`). */
export function buildUpdate(observer: Observer, visible: Iterable<WorldObject>, opts: BuildOptions = {}): BuiltUpdate {
  return new UpdateProducer(opts).produce(observer, visible);
}

/** SMSG_DESTROY_OBJECT for one object (the single-object path of §9.2); forgets it for the observer. */
export function buildDestroy(observer: Observer, guid: bigint): Uint8Array {
  observer.known.delete(guid);
  return encodeDestroy(guid);
}

const HEADER = 5;

// ---------------------------------------------------------------------------
// helpers to make world objects

/** Default movement block of a type (§5.3): units and players 0x70, gameobjects / dynamic objects / corpses 0x50, items 0x10. */
export function defaultMovement(typeId: number, pos: { x: number; y: number; z: number; o: number } = { x: 0, y: 0, z: 0, o: 0 }, time = 0): Movement {
  if (typeId === TypeId.UNIT || typeId === TypeId.PLAYER) {
    return {
      updateFlags: UpdateFlag.ALL | UpdateFlag.LIVING | UpdateFlag.HAS_POSITION,
      movementInfo: { flags: 0, time, x: pos.x, y: pos.y, z: pos.z, o: pos.o, fallTime: 0 },
      speeds: { walk: 2.5, run: 7, runBack: 4.5, swim: Math.fround(4.722222), swimBack: 2.5, turnRate: Math.fround(3.141594) },
      all: 1,
    };
  }
  if (typeId === TypeId.ITEM || typeId === TypeId.CONTAINER) return { updateFlags: UpdateFlag.ALL, all: 1 };
  return { updateFlags: UpdateFlag.ALL | UpdateFlag.HAS_POSITION, position: { ...pos }, all: 1 };
}

/** Set a field of a values array by name: numbers for int/float/bytes-as-u32, bigint for guids, tuples for bytes / two_shorts. */
export function setField(values: Uint32Array, typeId: number, name: string, value: number | bigint | number[], element = 0): void {
  const f = fieldByName(typeId, name);
  if (f === undefined) throw new EncodeError(name, `${objectType(typeId)?.name ?? `type ${typeId}`} has no field ${name}`);
  const width = f.type === 'guid' ? 2 : 1;
  const s = f.index + element * width;
  if (element < 0 || s + width > f.index + f.size) throw new EncodeError(name, `no element ${element}`);
  if (typeof value === 'bigint') {
    values[s] = Number(value & 0xffffffffn);
    if (width === 2) values[s + 1] = Number((value >> 32n) & 0xffffffffn);
  } else if (Array.isArray(value)) {
    values[s] =
      f.type === 'two_shorts'
        ? ((value[0]! & 0xffff) | ((value[1]! & 0xffff) << 16)) >>> 0
        : ((value[0]! & 0xff) | ((value[1]! & 0xff) << 8) | ((value[2]! & 0xff) << 16) | ((value[3]! & 0xff) << 24)) >>> 0;
  } else if (f.type === 'float') {
    values[s] = f32ToBits(value);
  } else {
    values[s] = value >>> 0;
  }
}

/** A world object with OBJECT_FIELD_GUID, OBJECT_FIELD_TYPE and OBJECT_FIELD_SCALE_X (1.0) set and the type's default movement. */
export function makeWorldObject(guid: bigint, typeId: number, fields: Record<string, number | bigint | number[]> = {}, movement?: Movement): WorldObject {
  const t = objectType(typeId);
  if (t === undefined) throw new EncodeError('typeId', `unknown object type ${typeId}`);
  const values = new Uint32Array(t.valuesCount);
  setField(values, typeId, 'OBJECT_FIELD_GUID', guid);
  setField(values, typeId, 'OBJECT_FIELD_TYPE', t.typeMask);
  setField(values, typeId, 'OBJECT_FIELD_SCALE_X', 1);
  for (const [k, v] of Object.entries(fields)) setField(values, typeId, k, v);
  return { guid, typeId, values, movement: movement ?? defaultMovement(typeId) };
}

/**
 * Client side (§8): a decoder session that keeps, across messages, the controller
 * type of every live NetObj (so RigidBody / ChildShape Updates are read with the
 * right layout) and a mirror of the objects with their latest field values. It is
 * the family's `ClientMirror`: ids are `"<NetObj type>:<id>"` (`"Character:2"`),
 * the inspector's ids.
 */
import { LimitError, refusalAsDecodeError } from '../../core/errors.js';
import type { ClientMirror, MirrorChanges, MirroredEntity, MirrorIssue } from '../../core/mirror.js';
import type { SpanSink } from '../../core/spans.js';
import { decodeBody } from './body-read.js';
import { NETOBJ_BY_NAME } from './body-write.js';
import { ControllerTable } from './controllers.js';
import { toJson } from './json.js';
import { resolveScrapLimits, type ScrapLimits } from './limits.js';
import { encodeMessage, fromDecoder, readMessage, type ReadMessage } from './message.js';
import type { NetObjTypeName, NetworkUpdateBody, Packet, SubUpdate } from './types.js';

/** One NetObj as the client sees it. */
export interface MirrorObject {
  /** `"Character:2"`: NetObj type and id (ids are only known to be unique per type, §8.1). */
  key: string;
  netObjType: NetObjTypeName;
  id: number;
  controllerType?: number;
  /** Latest field values, JSON-ready: the Create's fields, then each Update merged in. */
  fields: Record<string, unknown>;
  /** An Update arrived with no Create seen (a stream joined late, §8.3). */
  placeholder?: boolean;
  /** Number of P updates seen (Joint). */
  pCount?: number;
}

/** What the last message changed (the session's own form; see also `changes`). */
export interface SessionChanges {
  created: Set<string>;
  /** Changed field names per object key (all of them for a created object). */
  changed: Map<string, Set<string>>;
  removed: string[];
}

export interface SessionOptions {
  strict?: boolean;
  limits?: Partial<ScrapLimits>;
  /**
   * Send every packet object `apply` is given through the encoder and the decoder, also those the decoder returned
   * (default false: those are applied as they are). For a caller that changes decoded packets before applying
   * them: a changed packet the encoder would refuse is then a DecodeError, and the session is left as it was.
   * It costs about twice the time of applying the object as it is.
   */
  checkDecoded?: boolean;
}

export class ScrapMechanicSession implements ClientMirror<Uint8Array | Packet> {
  /** Controller type per (NetObj type, id), used while decoding. */
  readonly controllers = new ControllerTable();
  /** The mirror, by key, in creation order. */
  readonly objects = new Map<string, MirrorObject>();
  last: SessionChanges = { created: new Set(), changed: new Map(), removed: [] };
  /** What the last message changed, in the vocabulary of every family (`ClientMirror`). */
  changes: MirrorChanges = { created: [], updated: new Map(), removed: [], issues: [] };
  private readonly limits: Readonly<ScrapLimits>;
  /** What each object counts towards `storeBytes`. */
  private readonly sizes = new Map<string, number>();
  private bytes = 0;
  private issues: MirrorIssue[] = [];
  private tick: number | undefined;

  constructor(readonly options: SessionOptions = {}) {
    this.limits = resolveScrapLimits(options.limits);
  }

  /**
   * `ClientMirror.apply`: decode one message (id + LZ4 payload) and apply it; or apply
   * a packet object. One the decoder returned is applied as it is; any other (made by the
   * caller) goes through the encoder and the decoder on its way in: what the mirror holds
   * is then what bytes could carry, read as the decoder reads them, and an object the
   * encoder refuses is a DecodeError naming the field (at byte 0: an object has no bytes).
   * A decoded packet changed by the caller since is applied as it is, unless the session
   * was made with `checkDecoded`. A message that fails
   * (DecodeError, or LimitError past `smMaxObjects` or `smMaxStoreBytes`) leaves the
   * session as it was.
   */
  apply(message: Uint8Array | Packet): MirrorChanges {
    if (message instanceof Uint8Array) this.decodeMessage(message);
    else if (this.options.checkDecoded !== true && fromDecoder(message)) {
      this.checkCapacity(message);
      this.track(message);
      this.applyDecoded(message);
    } else {
      let bytes: Uint8Array;
      try {
        bytes = encodeMessage(message, { lz4: 'literal' });
      } catch (e) {
        throw refusalAsDecodeError(e);
      }
      this.decodeMessage(bytes);
    }
    return this.changes;
  }

  /** What the mirror keeps, in bytes, as `smMaxStoreBytes` counts it. */
  get storeBytes(): number {
    return this.bytes;
  }

  /** `ClientMirror.entityIds`: the keys of the live objects. */
  entityIds(): Iterable<string> {
    return this.objects.keys();
  }

  /** `ClientMirror.entity`: one object's NetObj type and fields. */
  entity(id: string): MirroredEntity | undefined {
    const o = this.objects.get(id);
    return o === undefined ? undefined : { type: o.netObjType, fields: o.fields };
  }

  /**
   * Decode one message (id + LZ4 payload) and apply it. If it fails to decode, the
   * session is left as it was before the message.
   */
  decodeMessage(bytes: Uint8Array, spans?: SpanSink, ranges?: number[]): ReadMessage {
    this.controllers.begin();
    let m: ReadMessage;
    try {
      m = readMessage(bytes, { ...this.options, tracker: this.controllers, spans, ranges });
      this.checkCapacity(m.packet);
    } catch (e) {
      this.controllers.rollback();
      throw e;
    }
    this.controllers.commit();
    this.applyDecoded(m.packet);
    return m;
  }

  /** Decode one already decompressed 0x16 body and apply it. */
  decodeBody(body: Uint8Array, spans?: SpanSink, ranges?: number[]): NetworkUpdateBody {
    this.controllers.begin();
    let b: NetworkUpdateBody;
    try {
      b = decodeBody(body, { ...this.options, tracker: this.controllers, spans, ranges });
      this.checkCapacity({ packetId: 0x16, tick: b.tick, updates: b.updates });
    } catch (e) {
      this.controllers.rollback();
      throw e;
    }
    this.controllers.commit();
    this.applyDecoded({ packetId: 0x16, tick: b.tick, updates: b.updates });
    return b;
  }

  /**
   * Apply a decoded packet to the mirror (the controller table is maintained by the
   * decoder). No limit is checked here: `apply` checks them.
   */
  applyDecoded(p: Packet): void {
    this.last = { created: new Set(), changed: new Map(), removed: [] };
    this.issues = [];
    this.tick = undefined;
    this.applyPacket(p);
    this.changes = this.toMirrorChanges();
  }

  /**
   * Refuse a message that would take the mirror past `smMaxObjects` live objects or
   * `smMaxStoreBytes`, before anything is applied. Removes in the same message are not
   * counted, nor what an Update replaces: each Create or Update counts at most what it
   * can add.
   */
  private checkCapacity(p: Packet): void {
    const max = this.limits.smMaxObjects;
    const maxBytes = this.limits.smMaxStoreBytes;
    let n = 0;
    let add = 0;
    forEachUpdate(p, (u) => {
      n++;
      add += updateBound(u);
    });
    if (this.objects.size + n <= max && this.bytes + add + n * OBJECT_BYTES <= maxBytes) return;
    const fresh = new Set<string>();
    forEachUpdate(p, (u) => {
      if (u.updateType === 'Remove') return;
      const key = `${u.netObjType}:${u.id}`;
      if (!this.objects.has(key)) fresh.add(key);
    });
    const total = this.objects.size + fresh.size;
    if (total > max) throw new LimitError(0, 'updates', 'smMaxObjects', total, max);
    const bytes = this.bytes + add + fresh.size * OBJECT_BYTES;
    if (bytes > maxBytes) throw new LimitError(0, 'updates', 'smMaxStoreBytes', bytes, maxBytes);
  }

  /**
   * The controller table after a packet applied as decoded (from bytes, the decoder keeps it): a Create sets its
   * object's controller type, a Remove drops it, in order, as `checkUpdate` does. Without this, the next Update from
   * bytes of an object created by a packet object would be read with its layout guessed, and the table would keep the
   * ids such packets removed.
   */
  private track(p: Packet): void {
    forEachUpdate(p, (u) => {
      const ot = NETOBJ_BY_NAME.get(u.netObjType);
      if (ot === undefined) return;
      if (u.updateType === 'Create' && typeof u.controllerType === 'number') this.controllers.set(ot, u.id, u.controllerType);
      else if (u.updateType === 'Remove') this.controllers.delete(ot, u.id);
    });
  }

  /** Keep `size` as what object `key` counts (0: it is gone). */
  private resize(key: string, size: number): void {
    this.bytes += size - (this.sizes.get(key) ?? 0);
    if (size === 0) this.sizes.delete(key);
    else this.sizes.set(key, size);
  }

  private toMirrorChanges(): MirrorChanges {
    const l = this.last;
    const updated = new Map<string, string[]>();
    for (const [k, names] of l.changed) if (!l.created.has(k)) updated.set(k, [...names]);
    return { tick: this.tick, created: [...l.created], updated, removed: [...l.removed], issues: this.issues };
  }

  private applyPacket(p: Packet): void {
    if ('updates' in p) {
      this.tick ??= p.tick;
      for (let i = 0; i < p.updates.length; i++) this.applyUpdate(p.updates[i]!);
    } else if ('packets' in p) for (const q of p.packets) this.applyPacket(q);
  }

  private mark(key: string, names: Iterable<string>): void {
    let s = this.last.changed.get(key);
    if (s === undefined) this.last.changed.set(key, (s = new Set()));
    for (const n of names) s.add(n);
  }

  private applyUpdate(u: SubUpdate): void {
    const key = `${u.netObjType}:${u.id}`;
    if (u.warnings !== undefined) for (const w of u.warnings) this.issues.push({ kind: w.slice(0, w.indexOf(':')), message: w, id: key });
    if (u.updateType === 'Remove') {
      if (this.objects.delete(key)) {
        this.last.removed.push(key);
        this.resize(key, 0);
      } else this.issues.push({ kind: 'unknown-entity', message: `Remove of ${key}, which is not mirrored`, id: key });
      this.last.created.delete(key);
      this.last.changed.delete(key);
      return;
    }
    if (u.updateType === 'Create') {
      const fields: Record<string, unknown> = { controllerType: u.controllerType };
      if (u.variant !== undefined) fields.variant = u.variant;
      if (u.data !== null) Object.assign(fields, toJson(u.data));
      if (u.opaque !== undefined) fields.opaque = toJson(u.opaque);
      const o: MirrorObject = { key, netObjType: u.netObjType, id: u.id, fields };
      if (u.controllerType !== undefined) o.controllerType = u.controllerType;
      this.objects.delete(key);
      this.objects.set(key, o);
      this.resize(key, OBJECT_BYTES + jsonBytes(fields));
      this.last.created.add(key);
      this.mark(key, Object.keys(fields));
      return;
    }
    let o = this.objects.get(key);
    if (o === undefined) {
      o = { key, netObjType: u.netObjType, id: u.id, fields: {}, placeholder: true };
      if (u.controllerType !== undefined) {
        o.controllerType = u.controllerType;
        o.fields.controllerType = u.controllerType;
      }
      this.objects.set(key, o);
      this.resize(key, OBJECT_BYTES + jsonBytes(o.fields));
      this.last.created.add(key);
      this.issues.push({ kind: 'unknown-entity', message: `${u.updateType} of ${key} with no Create seen (a stream joined late)`, id: key });
    }
    if (u.updateType === 'P') {
      if (o.fields.pCount === undefined) this.resize(key, (this.sizes.get(key) ?? 0) + entryBytes('pCount', 0));
      o.pCount = (o.pCount ?? 0) + 1;
      o.fields.pCount = o.pCount;
      this.mark(key, ['pCount']);
      return;
    }
    this.mergeUpdate(key, o, u);
  }

  private mergeUpdate(key: string, o: MirrorObject, u: SubUpdate): void {
    const f = o.fields;
    let size = this.sizes.get(key) ?? 0;
    const set = (k: string, v: unknown) => {
      if (JSON.stringify(f[k]) !== JSON.stringify(v)) {
        size += entryBytes(k, v) - (f[k] === undefined ? 0 : entryBytes(k, f[k]));
        f[k] = v;
        this.mark(key, [k]);
      }
    };
    this.mergeFields(f, u, set);
    this.resize(key, size);
  }

  private mergeFields(f: Record<string, unknown>, u: SubUpdate, set: (k: string, v: unknown) => void): void {
    if (u.variant !== undefined) set('variant', u.variant);
    if (u.opaque !== undefined) set('opaque', toJson(u.opaque));
    if (u.data === null) return;
    const d = toJson(u.data) as Record<string, unknown>;
    if (u.netObjType === 'Container') {
      const changes = (d.slotChanges ?? []) as Array<Record<string, unknown>>;
      if (Array.isArray(f.items)) {
        const items = (f.items as unknown[]).slice();
        for (const c of changes) {
          const slot = c.slot as number;
          if (slot < items.length) items[slot] = { uuid: c.uuid, instanceId: c.instanceId, quantity: c.quantity };
        }
        set('items', items);
      }
      set('lastSlotChanges', changes);
      if (d.hasFilters === true) set('filters', d.filters);
      return;
    }
    for (const k of Object.keys(d)) set(k, d[k]);
  }
}

// --- what the mirror keeps (smMaxStoreBytes) ---

/** Per object: the MirrorObject, its key, its fields object, its Map entries. */
const OBJECT_BYTES = 256;
/** A string: its header, plus one byte a character (hex, UUIDs and names are one-byte strings). */
const STRING_BYTES = 16;
/** A number, boolean or null; an array element's or object entry's slot. */
const SLOT_BYTES = 8;
/** An array's or object's header. */
const CONTAINER_BYTES = 16;
/** What `controllerType`, `variant` and `pCount` can add to an object's fields, at most. */
const UPDATE_EXTRA_BYTES = 128;

/** The bytes a JSON value counts for `smMaxStoreBytes`. */
function jsonBytes(v: unknown): number {
  if (typeof v === 'string') return STRING_BYTES + v.length;
  if (v === null || typeof v !== 'object') return SLOT_BYTES;
  let n = CONTAINER_BYTES;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += SLOT_BYTES + jsonBytes(v[i]);
  } else {
    for (const k in v) n += entryBytes(k, (v as Record<string, unknown>)[k]);
  }
  return n;
}

function entryBytes(k: string, v: unknown): number {
  return SLOT_BYTES + k.length + jsonBytes(v);
}

/**
 * At least `jsonBytes(toJson(v))`, from the decoded value (without building its
 * JSON form): a number may become a string such as `"-Infinity"`, a bigint its
 * decimal digits, bytes their hex.
 */
function decodedBytes(v: unknown): number {
  switch (typeof v) {
    case 'number':
      return STRING_BYTES + 9;
    case 'bigint':
      return STRING_BYTES + 20;
    case 'string':
      return STRING_BYTES + v.length;
    case 'object':
      break;
    default:
      return SLOT_BYTES;
  }
  if (v === null) return SLOT_BYTES;
  if (v instanceof Uint8Array) return STRING_BYTES + 2 * v.length;
  let n = CONTAINER_BYTES;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) n += SLOT_BYTES + decodedBytes(v[i]);
  } else {
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== undefined) n += SLOT_BYTES + k.length + decodedBytes(x);
    }
  }
  return n;
}

/**
 * The most a sub-update can add to what the mirror keeps, besides a new object's
 * `OBJECT_BYTES`. A Container Update's slot changes are kept twice (in `items` and
 * as `lastSlotChanges`).
 */
function updateBound(u: SubUpdate): number {
  if (u.updateType === 'Remove') return 0;
  let n = UPDATE_EXTRA_BYTES;
  if (u.opaque !== undefined) n += decodedBytes(u.opaque);
  if (u.data !== null) n += (u.netObjType === 'Container' && u.updateType !== 'Create' ? 2 : 1) * decodedBytes(u.data);
  return n;
}

/** Every sub-update of a packet, in order (a 0x1D's packets included; depth ≤ 2). */

function forEachUpdate(p: Packet, fn: (u: SubUpdate) => void): void {
  if ('updates' in p) for (let i = 0; i < p.updates.length; i++) fn(p.updates[i]!);
  else if ('packets' in p) for (const q of p.packets) forEachUpdate(q, fn);
}

/**
 * Client side (§8): a decoder session that keeps, across messages, the controller
 * type of every live NetObj (so RigidBody / ChildShape Updates are read with the
 * right layout) and a mirror of the objects with their latest field values. It is
 * the family's `ClientMirror`: ids are `"<NetObj type>:<id>"` (`"Character:2"`),
 * the inspector's ids.
 */
import { LimitError } from '../../core/errors.js';
import type { ClientMirror, MirrorChanges, MirroredEntity, MirrorIssue } from '../../core/mirror.js';
import type { SpanSink } from '../../core/spans.js';
import { decodeBody } from './body-read.js';
import { ControllerTable } from './controllers.js';
import { toJson } from './json.js';
import { resolveScrapLimits, type ScrapLimits } from './limits.js';
import { readMessage, type ReadMessage } from './message.js';
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
  private issues: MirrorIssue[] = [];
  private tick: number | undefined;

  constructor(readonly options: SessionOptions = {}) {
    this.limits = resolveScrapLimits(options.limits);
  }

  /**
   * `ClientMirror.apply`: decode one message (id + LZ4 payload) and apply it; or apply
   * an already decoded packet. A message that fails (DecodeError, or LimitError past
   * `smMaxObjects`) leaves the session as it was.
   */
  apply(message: Uint8Array | Packet): MirrorChanges {
    if (message instanceof Uint8Array) this.decodeMessage(message);
    else this.applyDecoded(message);
    return this.changes;
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

  /** Apply a decoded packet to the mirror (the controller table is maintained by the decoder). */
  applyDecoded(p: Packet): void {
    this.last = { created: new Set(), changed: new Map(), removed: [] };
    this.issues = [];
    this.tick = undefined;
    this.applyPacket(p);
    this.changes = this.toMirrorChanges();
  }

  /**
   * Refuse a message that would take the mirror past `smMaxObjects` live objects,
   * before anything is applied (removes in the same message are not counted).
   */
  private checkCapacity(p: Packet): void {
    const max = this.limits.smMaxObjects;
    let n = 0;
    forEachUpdate(p, () => n++);
    if (this.objects.size + n <= max) return;
    const fresh = new Set<string>();
    forEachUpdate(p, (u) => {
      if (u.updateType === 'Remove') return;
      const key = `${u.netObjType}:${u.id}`;
      if (!this.objects.has(key)) fresh.add(key);
    });
    const total = this.objects.size + fresh.size;
    if (total > max) throw new LimitError(0, 'updates', 'smMaxObjects', total, max);
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
      if (this.objects.delete(key)) this.last.removed.push(key);
      else this.issues.push({ kind: 'unknown-entity', message: `Remove of ${key}, which is not mirrored`, id: key });
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
      this.last.created.add(key);
      this.issues.push({ kind: 'unknown-entity', message: `${u.updateType} of ${key} with no Create seen (a stream joined late)`, id: key });
    }
    if (u.updateType === 'P') {
      o.pCount = (o.pCount ?? 0) + 1;
      o.fields.pCount = o.pCount;
      this.mark(key, ['pCount']);
      return;
    }
    this.mergeUpdate(key, o, u);
  }

  private mergeUpdate(key: string, o: MirrorObject, u: SubUpdate): void {
    const f = o.fields;
    const set = (k: string, v: unknown) => {
      if (JSON.stringify(f[k]) !== JSON.stringify(v)) {
        f[k] = v;
        this.mark(key, [k]);
      }
    };
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

/** Every sub-update of a packet, in order (a 0x1D's packets included; depth ≤ 2). */
function forEachUpdate(p: Packet, fn: (u: SubUpdate) => void): void {
  if ('updates' in p) for (let i = 0; i < p.updates.length; i++) fn(p.updates[i]!);
  else if ('packets' in p) for (const q of p.packets) forEachUpdate(q, fn);
}

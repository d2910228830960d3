/**
 * Client side (§8): a decoder session that keeps, across messages, the controller
 * type of every live NetObj (so RigidBody / ChildShape Updates are read with the
 * right layout) and a mirror of the objects with their latest field values.
 */
import type { SpanSink } from '../../core/spans.js';
import type { Limits } from '../../core/limits.js';
import { ControllerTable, decodeBody, readMessage, type ReadMessage } from './codec.js';
import { toJson } from './json.js';
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

/** What the last message changed. */
export interface SessionChanges {
  created: Set<string>;
  /** Changed field names per object key. */
  changed: Map<string, Set<string>>;
  removed: string[];
}

export interface SessionOptions {
  strict?: boolean;
  limits?: Partial<Limits>;
}

export class ScrapMechanicSession {
  /** Controller type per (NetObj type, id), used while decoding. */
  readonly controllers = new ControllerTable();
  /** The mirror, by key, in creation order. */
  readonly objects = new Map<string, MirrorObject>();
  last: SessionChanges = { created: new Set(), changed: new Map(), removed: [] };

  constructor(readonly options: SessionOptions = {}) {}

  /**
   * Decode one message (id + LZ4 payload) and apply it. If it fails to decode, the
   * session is left as it was before the message.
   */
  decodeMessage(bytes: Uint8Array, spans?: SpanSink, ranges?: number[]): ReadMessage {
    this.controllers.begin();
    let m: ReadMessage;
    try {
      m = readMessage(bytes, { ...this.options, tracker: this.controllers, spans, ranges });
    } catch (e) {
      this.controllers.rollback();
      throw e;
    }
    this.controllers.commit();
    this.apply(m.packet);
    return m;
  }

  /** Decode one already decompressed 0x16 body and apply it. */
  decodeBody(body: Uint8Array, spans?: SpanSink, ranges?: number[]): NetworkUpdateBody {
    this.controllers.begin();
    let b: NetworkUpdateBody;
    try {
      b = decodeBody(body, { ...this.options, tracker: this.controllers, spans, ranges });
    } catch (e) {
      this.controllers.rollback();
      throw e;
    }
    this.controllers.commit();
    this.applyUpdates(b.updates, true);
    return b;
  }

  /** Apply a decoded packet to the mirror (the controller table is maintained by the decoder). */
  apply(p: Packet): void {
    this.last = { created: new Set(), changed: new Map(), removed: [] };
    this.applyPacket(p);
  }

  private applyPacket(p: Packet): void {
    if ('updates' in p) this.applyUpdates(p.updates, false);
    else if ('packets' in p) for (const q of p.packets) this.applyPacket(q);
  }

  private applyUpdates(updates: SubUpdate[], fresh: boolean): void {
    if (fresh) this.last = { created: new Set(), changed: new Map(), removed: [] };
    for (const u of updates) this.applyUpdate(u);
  }

  private mark(key: string, names: Iterable<string>): void {
    let s = this.last.changed.get(key);
    if (s === undefined) this.last.changed.set(key, (s = new Set()));
    for (const n of names) s.add(n);
  }

  private applyUpdate(u: SubUpdate): void {
    const key = `${u.netObjType}:${u.id}`;
    if (u.updateType === 'Remove') {
      this.objects.delete(key);
      this.last.removed.push(key);
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
    }
    if (u.updateType === 'P') {
      o.pCount = (o.pCount ?? 0) + 1;
      o.fields.pCount = o.pCount;
      this.mark(key, ['pCount']);
      return;
    }
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
        const items = [...(f.items as unknown[])];
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

/**
 * The client side of the replication engine: applies the server's packets to a
 * mirror of the world, keeps a short history so that any recent tick can be a
 * baseline, and produces acknowledgements.
 *
 * A packet is decoded completely before anything is applied, so a DecodeError
 * leaves the mirror exactly as it was.
 */
import { ByteReader } from '../core/reader.js';
import { ByteWriter } from '../core/writer.js';
import { DecodeError, EncodeError, rethrowAt } from '../core/errors.js';
import type { ClientMirror, MirrorChanges, MirrorIssue } from '../core/mirror.js';
import { BitIn, bitLength, readGamma } from './bits.js';
import { planOf, readBodyInto } from './codec.js';
import { checkDefs, schemaHash, type AnyEntityDef, type EntityDef, type Fields, type ValuesOf } from './schema.js';
import { FloatBits, fromRaw, rawEq, valuesOf } from './values.js';
import { ACK_MAGIC, STATE_MAGIC, hex32 } from './wire.js';

/**
 * One entity as a client sees it: its type name, typed values, and raw values
 * (floats as bits). The object stays the same while the entity exists with
 * this type; its `values` object is updated in place and `raw` is replaced
 * when the entity changes (raw arrays are reused: copy one to keep it).
 */
export class ReplicatedEntity<N extends string = string, V = Record<string, unknown>> {
  private cache: V | undefined;
  /** @internal The first tick at which the client held the current `raw`. */
  since = 0;
  /** @internal What the client held for this id before `since` (history for baselines; cut below the oldest baseline). */
  prev: HistoryNode = null;
  constructor(
    readonly type: N,
    readonly def: AnyEntityDef,
    /** Raw values in field order: f32 as uint32 bits, f64 as [hi, lo], ref as 0 | id, quantized as steps. */
    public raw: readonly unknown[],
    private readonly fb: FloatBits,
  ) {}
  /**
   * Values as numbers, strings, ...; computed on first use. NaN payloads are
   * exact only in `raw`. The object is kept from version to version of an
   * entity and updated in place (only the changed fields are converted).
   */
  get values(): V {
    let c = this.cache;
    if (c === undefined) {
      c = valuesOf(this.def, this.raw, this.fb) as V;
      this.cache = c;
    }
    return c;
  }

  /** @internal Convert the fields of `mask` (bit i: field i) of the current raw into the values object, if there is one. */
  refresh(mask: number): void {
    const c = this.cache as Record<string, unknown> | undefined;
    if (c === undefined) return;
    const list = this.def.list;
    const raw = this.raw;
    const fb = this.fb;
    while (mask !== 0) {
      const i = 31 - Math.clz32(mask & -mask);
      mask &= mask - 1;
      const fi = list[i]!;
      c[fi.name] = fi.kind === 'f32' ? fb.f32Value(raw[i] as number) : fromRaw(fi.f, raw[i], fb);
    }
  }

  /** @internal Convert the fields at `indices` into the values object, if there is one. */
  refreshAt(indices: readonly number[]): void {
    const c = this.cache as Record<string, unknown> | undefined;
    if (c === undefined) return;
    for (const i of indices) c[this.def.list[i]!.name] = fromRaw(this.def.list[i]!.f, this.raw[i], this.fb);
  }
}

/** @internal History node: an older raw of an entity (`owner`), held from `since` until the next node. */
class Hist {
  constructor(
    public since: number,
    public raw: readonly unknown[],
    public prev: HistoryNode,
    public owner: ReplicatedEntity,
  ) {}
}

/** @internal History node: the id was not held from `since` on. */
class Gap {
  constructor(
    readonly since: number,
    public prev: HistoryNode,
  ) {}
}

/** What a client held for an id at some tick: an entity (its current raw, or frozen after it left), an older raw, or nothing. */
type HistoryNode = ReplicatedEntity | Hist | Gap | null;

/** The entity type of a list of definitions, as a union tagged by `type`. */
export type EntityOf<Defs extends readonly AnyEntityDef[]> = {
  [K in keyof Defs]: Defs[K] extends EntityDef<infer N, infer F extends Fields> ? ReplicatedEntity<N, ValuesOf<F>> : never;
}[number];

export interface ReceiveResult {
  /** The packet's tick. */
  tick: number;
  /** Its baseline tick, or null for a full state. */
  baseTick: number | null;
  spawned: number[];
  /** Entities that existed before and after, with the names of the fields that changed (arrays may be shared and frozen: do not modify). */
  changed: Map<number, readonly string[]>;
  despawned: number[];
  /** Entities the server left out of this packet (0: the mirror is the server's view at `tick`). */
  deferred: number;
  /** Set when the packet was not applied: `old` (not newer than the mirror) or `missing-baseline`. */
  ignored?: 'old' | 'missing-baseline';
}

export interface ClientOptions<Defs extends readonly AnyEntityDef[]> {
  entities: Defs;
  /** Ticks of history kept for baselines (default 32; must be at least the server's `baselineWindow`, default 32). */
  window?: number;
}

/** The ids an applied tick touched, and those whose history is cut when it leaves the window. */
interface Touched {
  ids: number[];
  cut: number[] | null;
}

/** A decoded packet before it is applied (one per client, reused: records 0..n-1). */
interface Parsed {
  n: number;
  tick: number;
  base: number | null;
  deferred: number;
  ids: number[];
  /** The record's new raw (a fresh array, or the spare of the entity it updates), or null: a despawn. */
  raws: (unknown[] | null)[];
  /** Creations: the type; other records: null. */
  types: (AnyEntityDef | null)[];
  /** Update records: the change mask (or -1: compare the fields); other records: 0. */
  masks: number[];
  /** What the client held at the baseline for each record's id. */
  helds: (ReplicatedEntity | Hist | null)[];
}

export class ReplicationClient<Defs extends readonly AnyEntityDef[] = readonly AnyEntityDef[]> implements ClientMirror {
  readonly defs: Defs;
  readonly hash: number;
  readonly window: number;
  private readonly typeBits: number;
  private readonly fb = new FloatBits();
  private readonly view = new Map<number, ReplicatedEntity>();
  /** History of ids not held now (despawned or out of interest) that a baseline may still need. */
  private readonly gone = new Map<number, Gap>();
  /** Applied ticks (ascending) and the ids each touched. */
  private readonly applied = new Map<number, Touched>();
  /** Field names by change mask, per type (the `changed` lists of the fast path). */
  private readonly names = new Map<AnyEntityDef, Map<number, readonly string[]>>();
  private latest = 0;
  private readonly hdr = [0, 0, 0, 0];
  /** The bit reader, reused from packet to packet. */
  private readonly bits = new BitIn();
  /** The last (type, mask) looked up in `names`, and its list. */
  private namesDef: AnyEntityDef | undefined;
  private namesMask = -1;
  private namesList: readonly string[] = [];
  private readonly scratch: Parsed = { n: 0, tick: 0, base: null, deferred: 0, ids: [], raws: [], types: [], masks: [], helds: [] };
  /**
   * The newest baseline the server has used. The server's baselines never go
   * back (it deltas against the newest ack, or sends a full state), so history
   * older than this is never needed again.
   */
  private floor = 0;

  constructor(opts: ClientOptions<Defs>) {
    checkDefs(opts.entities);
    this.defs = opts.entities;
    this.hash = schemaHash(opts.entities);
    this.window = opts.window ?? 32;
    if (!Number.isInteger(this.window) || this.window < 1) throw new EncodeError('window', 'must be a positive integer');
    this.typeBits = bitLength(opts.entities.length - 1);
  }

  /** What this client currently sees. */
  get entities(): ReadonlyMap<number, EntityOf<Defs>> {
    return this.view as unknown as ReadonlyMap<number, EntityOf<Defs>>;
  }

  /** The tick of the newest applied packet (0 before any). */
  get tick(): number {
    return this.latest;
  }

  /** The acknowledgement to send back (acked delivery): the newest applied tick. */
  ack(): Uint8Array {
    return new ByteWriter(10).u8(ACK_MAGIC).u32le(this.hash).vu32(this.latest).finish();
  }

  /**
   * Apply one packet. Old and duplicate packets, and packets whose baseline this
   * client no longer has, are ignored (see `ignored`). Throws only DecodeError,
   * and then changes nothing.
   */
  receive(bytes: Uint8Array): ReceiveResult {
    const h = this.hdr;
    const pos = fastHeader(bytes, this.hash, h);
    if (pos < 0) return this.receiveChecked(bytes);
    const tick = h[0]!;
    const ago = h[1]!;
    if (ago > tick) throw new DecodeError(6, 'baseAgo', `at most the tick (${tick})`, String(ago));
    const base = ago === 0 ? null : tick - ago;
    if (tick === 0) throw new DecodeError(5, 'tick', 'a tick of at least 1', '0');
    if (tick <= this.latest) return ignoredResult(tick, base, 'old');
    if (base !== null && !this.applied.has(base)) return ignoredResult(tick, base, 'missing-baseline');
    const deferred = h[2]!;
    const count = h[3]!;
    const end = bytes.length;
    if (count > (end - pos) * 4) throw new DecodeError(pos, 'count', `at most ${(end - pos) * 4} records in ${end - pos} bytes`, String(count));
    const parsed = this.parse(this.bits.reset(bytes, pos, end), this.start(tick, base, deferred), count);
    return this.commit(parsed);
  }

  /** `receive` through a ByteReader: the unusual headers (errors, truncation, long varints). */
  private receiveChecked(bytes: Uint8Array): ReceiveResult {
    const r = new ByteReader(bytes);
    const magic = r.u8('magic');
    if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
    const hash = r.u32le('schemaHash');
    if (hash !== this.hash) throw new DecodeError(1, 'schemaHash', `schema hash ${hex32(this.hash)} (the server has another schema)`, hex32(hash));
    const tick = r.vu32('tick');
    const ago = r.vu32('baseAgo');
    if (ago > tick) throw new DecodeError(6, 'baseAgo', `at most the tick (${tick})`, String(ago));
    const base = ago === 0 ? null : tick - ago;
    if (tick === 0) throw new DecodeError(5, 'tick', 'a tick of at least 1', '0');
    if (tick <= this.latest) return ignoredResult(tick, base, 'old');
    if (base !== null && !this.applied.has(base)) return ignoredResult(tick, base, 'missing-baseline');
    const deferred = r.vu32('deferred');
    const count = r.vu32('count');
    // each record takes at least 2 bits
    if (count > (r.end - r.pos) * 4) throw new DecodeError(r.pos, 'count', `at most ${(r.end - r.pos) * 4} records in ${r.end - r.pos} bytes`, String(count));
    const parsed = this.parse(this.bits.reset(bytes, r.pos, r.end), this.start(tick, base, deferred), count);
    return this.commit(parsed);
  }

  /**
   * What this client held for entity `id` at the applied tick `base` (null: nothing,
   * or `base` is null, i.e. a full state). Valid for `base` from the oldest
   * baseline still kept up to the newest applied tick; used by tools that walk
   * a packet's records against its baseline before applying it (an older
   * version comes as an entity object of its own, valid until the next `receive`).
   */
  heldAt(id: number, base: number | null): ReplicatedEntity | null {
    const n = this.heldNode(id, base);
    if (n === null || n instanceof ReplicatedEntity) return n;
    const e = new ReplicatedEntity(n.owner.type, n.owner.def, n.raw, this.fb);
    e.since = n.since;
    return e;
  }

  /** What this client held for `id` at `base`: an entity (its current raw), an older raw of one, or null. */
  private heldNode(id: number, base: number | null): ReplicatedEntity | Hist | null {
    if (base === null) return null;
    let n: HistoryNode | undefined = this.view.get(id);
    if (n === undefined) n = this.gone.get(id) ?? null;
    while (n !== null && n.since > base) n = n.prev;
    return n instanceof Gap ? null : n;
  }

  private start(tick: number, base: number | null, deferred: number): Parsed {
    const p = this.scratch;
    this.clear(p);
    p.tick = tick;
    p.base = base;
    p.deferred = deferred;
    return p;
  }

  /** Drop the references of the last parse. */
  private clear(p: Parsed): void {
    p.raws.fill(null, 0, p.n);
    p.types.fill(null, 0, p.n);
    p.helds.fill(null, 0, p.n);
    p.n = 0;
  }

  private parse(inp: BitIn, p: Parsed, count: number): Parsed {
    let id = 0;
    const defs = this.defs;
    const base = p.base;
    // the usual case: the baseline is what the mirror shows now
    const current = base !== null && base === this.latest;
    const view = this.view;
    for (let i = 0; i < count; i++) {
      try {
        id += readGamma(inp, 'id');
        if (id > 0xffffffff) inp.fail('id', 'an id below 2^32', String(id));
        const held = base === null ? null : current ? (view.get(id) ?? null) : this.heldNode(id, base);
        if (inp.bit('op') === 0) {
          if (held === null) inp.fail('op', `an entity held at the baseline for an update (id ${id})`, 'none');
          const raw = held.raw.slice();
          const def = held instanceof ReplicatedEntity ? held.def : held.owner.def;
          const k = p.n++;
          p.masks[k] = readBodyInto(inp, def, held.raw, raw);
          p.helds[k] = held;
          p.ids[k] = id;
          p.raws[k] = raw;
          p.types[k] = null;
        } else if (inp.bit('op') === 0) {
          if (held !== null) inp.fail('op', `no entity held at the baseline for a creation (id ${id})`, 'one');
          const type = inp.read(this.typeBits, 'type');
          const def = defs[type];
          if (def === undefined) inp.fail('type', `a type index below ${defs.length}`, String(type));
          const raw = def.defaults.slice();
          readBodyInto(inp, def, def.defaults, raw);
          const k = p.n++;
          p.masks[k] = 0;
          p.helds[k] = null;
          p.ids[k] = id;
          p.raws[k] = raw;
          p.types[k] = def;
        } else {
          if (held === null) inp.fail('op', `an entity held at the baseline for a despawn (id ${id})`, 'none');
          const k = p.n++;
          p.masks[k] = 0;
          p.helds[k] = held;
          p.ids[k] = id;
          p.raws[k] = null;
          p.types[k] = null;
        }
      } catch (e) {
        throw rethrowAt(e, `records[${i}]`, inp.offset);
      }
    }
    inp.expectPadding('end');
    return p;
  }

  private commit(p: Parsed): ReceiveResult {
    const t = p.tick;
    const res: ReceiveResult = { tick: t, baseTick: p.base, spawned: [], changed: new Map(), despawned: [], deferred: p.deferred };
    let touched: number[] = [];
    // ids whose history needs cutting when this tick leaves the window (an update on the usual path needs none: it keeps one node)
    let cut: number[] | null = null;
    // the history floor after this packet: nothing older is needed again
    if (p.base !== null && p.base > this.floor) this.floor = p.base;
    const floor = Math.max(this.floor, t - this.window);
    if (p.base !== null && p.base === this.latest) {
      // the usual case: the baseline is what the mirror shows (every held is a current entity, and floor >= its since)
      const { ids, raws, masks, helds, types, n } = p;
      const view = this.view;
      for (let i = 0; i < n; i++) {
        const id = ids[i]!;
        const raw = raws[i]!;
        if (raw === null) {
          (cut ??= []).push(id);
          // despawn
          const held = helds[i] as ReplicatedEntity;
          held.prev = null;
          view.delete(id);
          this.gone.set(id, new Gap(t, held));
          res.despawned.push(id);
          continue;
        }
        const def = types[i]!;
        if (def !== null) {
          // creation: the id was not held now; its history may be a gap
          const e = new ReplicatedEntity(def.name, def, raw, this.fb);
          e.since = t;
          (cut ??= []).push(id);
          const g = this.gone.get(id);
          if (g !== undefined) {
            if (g.since <= floor) g.prev = null;
            this.gone.delete(id);
            e.prev = g;
          }
          view.set(id, e);
          res.spawned.push(id);
          continue;
        }
        const e = helds[i] as ReplicatedEntity;
        // the old raw becomes the one history node (nothing older is needed: e.since <= floor)
        const h = new Hist(e.since, e.raw, null, e);
        e.prev = h;
        e.raw = raw;
        e.since = t;
        const mask = masks[i]!;
        // fields whose set mask bit always means a new value (all but strings, bytes, arrays): names from the mask
        if (mask >= 0 && (mask & planOf(e.def).maybeSame) === 0) {
          if (mask !== 0) res.changed.set(id, this.namesOf(e.def, mask));
          if (mask > 0) e.refresh(mask);
        } else this.changedFields(id, e, h.raw, res);
      }
      touched = ids.slice(0, n);
    } else {
      const { ids, raws, types, helds, n } = p;
      const base = p.base;
      // entities changed after the baseline and not in the packet go back to what the baseline had
      // (found before anything is applied: ids are in increasing order, so a binary search tells)
      let back: Map<number, ReplicatedEntity | Hist | null> | null = null;
      if (base === null) {
        for (const id of this.view.keys()) if (!sortedHas(ids, n, id)) (back ??= new Map()).set(id, null);
      } else {
        for (const [k, touchedAt] of this.applied) {
          if (k <= base) continue;
          for (const id of touchedAt.ids) if (!sortedHas(ids, n, id) && !back?.has(id)) (back ??= new Map()).set(id, this.heldNode(id, base));
        }
      }
      for (let i = 0; i < n; i++) {
        const raw = raws[i]!;
        const held = helds[i]!;
        const def = raw === null ? null : (types[i] ?? (held instanceof ReplicatedEntity ? held.def : held!.owner.def));
        this.change(ids[i]!, t, def, raw, res, touched, floor);
      }
      if (back !== null) {
        for (const [id, v] of back) {
          if (v === null) this.change(id, t, null, null, res, touched, floor);
          else this.change(id, t, v instanceof ReplicatedEntity ? v.def : v.owner.def, v.raw.slice(), res, touched, floor);
        }
      }
    }
    this.clear(p);
    this.applied.set(t, { ids: touched, cut: cut ?? (p.base !== null && p.base === this.latest ? null : touched) });
    this.latest = t;
    for (const [k, a] of this.applied) {
      if (k >= floor) break;
      this.applied.delete(k);
      if (a.cut !== null) for (const id of a.cut) this.prune(id, floor);
    }
    return res;
  }

  /** Make `raw` of type `def` (null: nothing) what the client holds for `id` from tick `t` on; `raw` is the client's to keep. */
  private change(id: number, t: number, def: AnyEntityDef | null, raw: unknown[] | null, res: ReceiveResult, touched: number[], floor: number): void {
    const cur = this.view.get(id) ?? null;
    if (cur === null && raw === null) return;
    if (cur !== null && raw !== null && cur.def === def) {
      // the same type: the entity changes in place (nothing, if the values are the ones it has: a delta against an older baseline repeats them)
      const list = def.list;
      const from = cur.raw;
      let mask = 0;
      let idx: number[] | null = null;
      for (let f = 0; f < list.length; f++) {
        const a = from[f];
        const b = raw[f];
        if (a !== b && !rawEq(list[f]!.f, a, b)) {
          if (f < 32) mask |= 1 << f;
          else (idx ??= []).push(f);
        }
      }
      if (mask === 0 && idx === null) return;
      touched.push(id);
      cur.prev = new Hist(cur.since, from, cur.since <= floor ? null : cur.prev, cur);
      cur.raw = raw;
      cur.since = t;
      if (idx === null) {
        res.changed.set(id, this.namesOf(def, mask));
        cur.refresh(mask);
      } else {
        for (let f = 31; f >= 0; f--) if ((mask >>> f) & 1) idx.unshift(f);
        res.changed.set(id, idx.map((f) => list[f]!.name));
        cur.refreshAt(idx);
      }
      return;
    }
    touched.push(id);
    const prevNode: HistoryNode = cur ?? this.gone.get(id) ?? null;
    // history: the new node points at the old one, which is cut below the floor
    if (prevNode !== null && prevNode.since <= floor) prevNode.prev = null;
    if (raw === null) {
      this.view.delete(id);
      this.gone.set(id, new Gap(t, prevNode));
      res.despawned.push(id);
      return;
    }
    const e = new ReplicatedEntity(def!.name, def!, raw, this.fb);
    e.since = t;
    e.prev = prevNode;
    this.view.set(id, e);
    if (cur === null) {
      if (prevNode !== null) this.gone.delete(id);
      res.spawned.push(id);
      return;
    }
    // another type under the same id
    res.despawned.push(id);
    res.spawned.push(id);
  }

  /** List the fields of `e` that differ from `before` in `res.changed` and convert them into its values object. */
  private changedFields(id: number, e: ReplicatedEntity, before: readonly unknown[], res: ReceiveResult): void {
    const list = e.def.list;
    const names: string[] = [];
    const idx: number[] = [];
    for (let f = 0; f < list.length; f++) {
      const a = before[f];
      const b = e.raw[f];
      if (a !== b && !rawEq(list[f]!.f, a, b)) {
        names.push(list[f]!.name);
        idx.push(f);
      }
    }
    if (names.length > 0) res.changed.set(id, names);
    e.refreshAt(idx);
  }

  /** The names of the fields in a change mask (one frozen array per mask and type, shared between results). */
  private namesOf(def: AnyEntityDef, mask: number): readonly string[] {
    if (def === this.namesDef && mask === this.namesMask) return this.namesList;
    let m = this.names.get(def);
    if (m === undefined) this.names.set(def, (m = new Map()));
    let l = m.get(mask);
    if (l === undefined) {
      const a: string[] = [];
      for (let f = 0; f < def.list.length; f++) if ((mask >>> f) & 1) a.push(def.list[f]!.name);
      l = Object.freeze(a);
      if (m.size < 4096) m.set(mask, l);
    }
    this.namesDef = def;
    this.namesMask = mask;
    this.namesList = l;
    return l;
  }

  /** Drop history older than `floor` (keeping the version in force at `floor`), and forget entities long gone. */
  private prune(id: number, floor: number): void {
    let n: HistoryNode | undefined = this.view.get(id);
    if (n === undefined) {
      const g = this.gone.get(id);
      if (g === undefined) return;
      if (g.since <= floor) {
        this.gone.delete(id);
        return;
      }
      n = g;
    }
    while (n !== null && n.since > floor) n = n.prev;
    if (n !== null) n.prev = null;
  }

  /** Entries of history held (for tests of bounded memory). */
  historySize(): number {
    let n = this.applied.size;
    const count = (x: HistoryNode): void => {
      for (; x !== null; x = x.prev) n++;
    };
    for (const e of this.view.values()) count(e);
    for (const g of this.gone.values()) count(g);
    return n;
  }

  // --- ClientMirror ----------------------------------------------------------------

  apply(message: Uint8Array): MirrorChanges {
    const r = this.receive(message);
    const issues: MirrorIssue[] = r.ignored ? [{ kind: r.ignored, message: `packet for tick ${r.tick} ignored (${r.ignored})` }] : [];
    if (r.deferred > 0) issues.push({ kind: 'deferred', message: `${r.deferred} entities left out of this packet` });
    return {
      tick: r.tick,
      created: r.spawned.map(String),
      updated: new Map([...r.changed].map(([k, v]) => [String(k), [...v]])),
      removed: r.despawned.map(String),
      issues,
    };
  }

  entityIds(): Iterable<string> {
    return [...this.view.keys()].map(String);
  }

  entity(id: string): { type: string; fields: Record<string, unknown> } | undefined {
    const e = this.view.get(Number(id));
    return e && { type: e.type, fields: e.values };
  }
}

/** Whether `id` is among the first `n` entries of the ascending `ids`. */
function sortedHas(ids: readonly number[], n: number, id: number): boolean {
  let lo = 0;
  let hi = n - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const x = ids[mid]!;
    if (x === id) return true;
    if (x < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The header of a well-formed state packet of this schema without a reader
 * object: tick, baseAgo, deferred, count into `out`; returns the offset of the
 * records, or -1 for anything else (then the checked path reads it and reports).
 */
function fastHeader(b: Uint8Array, hash: number, out: number[]): number {
  const n = b.length;
  if (n < 9 || b[0] !== STATE_MAGIC || (b[1]! | (b[2]! << 8) | (b[3]! << 16) | (b[4]! << 24)) >>> 0 !== hash) return -1;
  let p = 5;
  for (let k = 0; k < 4; k++) {
    // at most 4 bytes (values < 2^28) here; longer ones go the checked way
    let v = 0;
    let shift = 0;
    for (;;) {
      if (p >= n || shift === 28) return -1;
      const x = b[p++]!;
      v |= (x & 0x7f) << shift;
      if (x < 0x80) break;
      shift += 7;
    }
    out[k] = v;
  }
  return p;
}

function ignoredResult(tick: number, base: number | null, why: 'old' | 'missing-baseline'): ReceiveResult {
  return { tick, baseTick: base, spawned: [], changed: new Map(), despawned: [], deferred: 0, ignored: why };
}

/** The header of a state packet, without decoding its records (for tools, relays and simulations). */
export function readPacketHeader(bytes: Uint8Array): { hash: number; tick: number; baseTick: number | null; deferred: number; count: number } {
  const r = new ByteReader(bytes);
  const magic = r.u8('magic');
  if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
  const hash = r.u32le('schemaHash');
  const tick = r.vu32('tick');
  const ago = r.vu32('baseAgo');
  if (ago > tick) throw new DecodeError(6, 'baseAgo', `at most the tick (${tick})`, String(ago));
  return { hash, tick, baseTick: ago === 0 ? null : tick - ago, deferred: r.vu32('deferred'), count: r.vu32('count') };
}

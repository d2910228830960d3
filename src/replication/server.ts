/**
 * The server side of the replication engine.
 *
 * The world is a set of entities whose values are immutable *versions*; a
 * `tick()` publishes the versions changed since the previous tick. What a
 * client holds after a packet is a *node*: the exact world as that client sees
 * it at the packet's tick (a canonical node, `over === null`), except for the
 * entities the packet left out, whose held versions are kept in `over`.
 * Clients that see the same world (no interest hook, no owned fields) share a
 * profile; a packet is built once per (profile, base node, tick) and shared,
 * and each entity record once per (held version, new version) and shared.
 */
import { ByteReader } from '../core/reader.js';
import { DecodeError, EncodeError } from '../core/errors.js';
import { BitOut, bitLength, gammaBits, writeGamma } from './bits.js';
import { maxRecordBits, writeBody } from './codec.js';
import { checkDefs, schemaHash, type AnyEntityDef, type EntityDef, type Fields, type ValuesOf } from './schema.js';
import { FloatBits, assignRaw, rawEq, toRaw, valuesOf } from './values.js';
import { ACK_MAGIC, HEADER_MAX, STATE_MAGIC, hex32 } from './wire.js';

import {
  NO_CHANGE,
  Profile,
  Ent,
  Version,
  addMarked,
  rawOf,
  type Built,
  type ClientState,
  type Enc,
  type Node,
  type Rec,
  type RecList,
  type ClientKey,
  type OwnerTag,
} from './model.js';

export type { ClientKey, OwnerTag } from './model.js';
export type Delivery = 'acked' | 'reliable';

export interface ServerOptions {
  /** Entity definitions; their order is part of the schema. */
  entities: readonly AnyEntityDef[];
  /** `acked` (default): deltas against the newest acknowledged tick. `reliable`: against the last packet sent. */
  delivery?: Delivery;
  /** Largest packet in bytes (default 1200). */
  mtu?: number;
  /** Ticks of history kept per client for baselines (default 32, 1..64). Older acks get a full state. */
  baselineWindow?: number;
}

export interface ClientOptions {
  /**
   * Which entities this client sees. Re-evaluated at every `tick()` for every
   * entity, so a hook that reads a moving viewpoint brings entities in and out
   * as it moves (see `interestEvery`).
   */
  interest?: (id: number, values: Record<string, unknown>) => boolean;
  /**
   * `'tick'` (default): the interest hook runs for every entity at every tick.
   * `'change'`: only for entities that changed that tick, and for all after
   * `refreshInterest(key)` (cheaper when the viewpoint rarely moves).
   */
  interestEvery?: 'tick' | 'change';
  /** Owner tag: the client sees the owner-only fields of entities spawned with the same tag. */
  owner?: OwnerTag;
}

/** Replication server: a world of entities, and one packet per client per tick. */
export class ReplicationServer<Defs extends readonly AnyEntityDef[] = readonly AnyEntityDef[]> {
  readonly defs: Defs;
  readonly hash: number;
  readonly delivery: Delivery;
  readonly mtu: number;
  readonly window: number;
  private readonly typeIndex = new Map<AnyEntityDef, number>();
  private readonly typeBits: number;
  private readonly ents = new Map<number, Ent>();
  private readonly dirty: Ent[] = [];
  private readonly log = new Map<number, Ent[]>();
  /** The versions published at each tick of the window. */
  private readonly logV = new Map<number, Version[]>();
  private readonly clients = new Map<ClientKey, ClientState>();
  private readonly publicProfile = new Profile(undefined, undefined);
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private readonly profiles = new Set<Profile>();
  private readonly fb = new FloatBits();
  private readonly scratch = new BitOut(256);
  private readonly pkt = new BitOut(512);
  private readonly setIdx: number[] = [];
  private readonly head = new Uint8Array(HEADER_MAX);
  private arena = new Uint32Array(ARENA_WORDS);
  private arenaPos = 0;
  private readonly recE: (Ent | undefined)[] = [];
  private readonly recHeld: (Version | null)[] = [];
  private readonly recTarget: (Version | null)[] = [];
  private readonly recEnc: Enc[] = [];
  private readonly recBits: number[] = [];
  private readonly setRaw: unknown[] = [];
  private nextId = 1;
  private t = 0;
  private markSeq = 0;
  /** Emptied per-tick lists for reuse. */
  private readonly freeEnts: Ent[][] = [];
  private readonly freeVersions: Version[][] = [];
  private readonly droppedLists: Ent[][] = [];
  private cands: Ent[] = [];
  private cands2: Ent[] = [];
  /**
   * The oldest tick whose world the version history still holds. No client
   * baseline is older than the newest tick it acknowledged (acked delivery) or
   * was last sent (reliable), so history below the oldest such tick is cut at
   * once instead of after the whole window: versions die young (cheap for the
   * garbage collector). `worldPacket(fromTick)` (relays) keeps the whole window.
   */
  private kept = 0;
  private relaying = false;

  constructor(opts: ServerOptions & { entities: Defs }) {
    checkDefs(opts.entities);
    this.defs = opts.entities;
    this.hash = schemaHash(opts.entities);
    this.delivery = opts.delivery ?? 'acked';
    this.mtu = opts.mtu ?? 1200;
    this.window = opts.baselineWindow ?? 32;
    if (!Number.isInteger(this.window) || this.window < 1 || this.window > 64) throw new EncodeError('baselineWindow', 'must be an integer 1..64');
    opts.entities.forEach((d, i) => this.typeIndex.set(d, i));
    this.typeBits = bitLength(opts.entities.length - 1);
    for (const d of opts.entities) {
      const need = Math.ceil(maxRecordBits(d, this.typeBits) / 8) + HEADER_MAX;
      if (need > this.mtu) throw new EncodeError('mtu', `an entity ${d.name} can take ${need} bytes with the header; raise mtu to at least that`);
    }
    this.profiles.add(this.publicProfile);
  }

  /** The tick of the last `tick()` (0 before the first). */
  get currentTick(): number {
    return this.t;
  }

  /** Number of live entities. */
  get size(): number {
    return this.ents.size;
  }

  // --- world ------------------------------------------------------------------

  /** Create an entity (it appears at the next `tick()`). `id` lets a relay keep its source's ids. */
  spawn<N extends string, F extends Fields>(def: EntityDef<N, F>, values: Partial<ValuesOf<F>> = {}, opts: { owner?: OwnerTag; id?: number } = {}): number {
    const type = this.typeIndex.get(def as unknown as AnyEntityDef);
    if (type === undefined) throw new EncodeError(def.name, 'entity definition not in this server’s schema');
    let id = this.nextId;
    if (opts.id !== undefined) {
      if (!Number.isInteger(opts.id) || opts.id < 1 || opts.id > 0xffffffff || this.ents.has(opts.id))
        throw new EncodeError('id', `id ${opts.id} is in use or not 1..2^32-1`);
      id = opts.id;
    }
    if (id > 0xffffffff) throw new EncodeError('id', 'entity ids exhausted');
    const raw = def.defaults.slice();
    assignRaw(def as unknown as AnyEntityDef, raw, values as Record<string, unknown>, this.fb);
    const e = new Ent(id, def as unknown as AnyEntityDef, type, new Version(raw, opts.owner));
    this.nextId = Math.max(this.nextId, id + 1);
    this.ents.set(id, e);
    this.markDirty(e);
    return id;
  }

  private live(id: number): Ent {
    const e = this.ents.get(id);
    if (e === undefined) throw new EncodeError(`entity ${id}`, 'no such live entity');
    return e;
  }

  private writable(e: Ent): Version {
    const cur = e.cur;
    if (cur.tick >= 0) e.cur = new Version(cur.raw.slice(), cur.owner);
    return e.cur;
  }

  private markDirty(e: Ent): void {
    if (!e.dirty) {
      e.dirty = true;
      this.dirty.push(e);
    }
  }

  /** Change some fields (validated; EncodeError on a bad value, nothing changed then). */
  set(id: number, values: Record<string, unknown>): void {
    const e = this.ents.get(id);
    if (e === undefined) throw new EncodeError(`entity ${id}`, 'no such live entity');
    const def = e.def;
    const idx = this.setIdx;
    const raws = this.setRaw;
    const cur = e.cur.raw;
    let n = 0;
    for (const name in values) {
      const fi = def.byName.get(name);
      if (fi === undefined) throw new EncodeError(`${def.name}.${name}`, `no field ${name} in ${def.name}`);
      const v = values[name];
      // the common float field without the generic converter (and its path string)
      const r = fi.kind === 'f32' && typeof v === 'number' ? this.fb.f32Bits(v) : toRaw(fi.f, v, `${def.name}.${name}`, this.fb);
      const old = cur[fi.index];
      if (old === r || rawEq(fi.f, old, r)) continue;
      idx[n] = fi.index;
      raws[n++] = r;
    }
    if (n === 0) return;
    const v = this.writable(e);
    for (let i = 0; i < n; i++) {
      v.raw[idx[i]!] = raws[i];
      raws[i] = undefined;
    }
    this.markDirty(e);
  }

  /** Current values of a live entity. */
  get(id: number): { type: string; values: Record<string, unknown> } | undefined {
    const e = this.ents.get(id);
    return e && { type: e.def.name, values: valuesOf(e.def, e.cur.raw, this.fb) };
  }

  /** Give an entity to an owner tag (or none): its owner-only fields go to clients with that tag. */
  setOwner(id: number, owner: OwnerTag | undefined): void {
    const e = this.live(id);
    if (e.cur.owner === owner) return;
    e.cur = new Version(e.cur.raw.slice(), owner);
    this.markDirty(e);
  }

  despawn(id: number): void {
    const e = this.live(id);
    this.ents.delete(id);
    e.despawnPending = true;
    this.markDirty(e);
  }

  /**
   * Relays: mirror what a `ReplicationClient` (same schema) just applied into
   * this server's world, with the same ids and bit-exact raw values. Feed it
   * the result of `client.receive(worldPacket)`, then `tick()` and serve this
   * server's own clients.
   */
  applyFrom(
    client: { hash: number; entities: ReadonlyMap<number, { type: string; raw: readonly unknown[] }> },
    result: { spawned: readonly number[]; changed: ReadonlyMap<number, unknown>; despawned: readonly number[] },
  ): void {
    if (client.hash !== this.hash) throw new EncodeError('schema', `client schema ${hex32(client.hash)} differs from ${hex32(this.hash)}`);
    for (const id of result.despawned) if (this.ents.has(id)) this.despawn(id);
    for (const id of result.spawned) {
      const src = client.entities.get(id);
      if (src === undefined) continue;
      const type = this.defs.findIndex((d) => d.name === src.type);
      const e = new Ent(id, this.defs[type]!, type, new Version(src.raw.slice(), undefined));
      this.nextId = Math.max(this.nextId, id + 1);
      this.ents.set(id, e);
      this.markDirty(e);
    }
    for (const id of result.changed.keys()) {
      const src = client.entities.get(id);
      const e = this.ents.get(id);
      if (src === undefined || e === undefined) continue;
      const v = this.writable(e);
      for (let i = 0; i < src.raw.length; i++) v.raw[i] = src.raw[i];
      this.markDirty(e);
    }
  }

  /**
   * Commit this tick's changes; returns the new tick number. `to` (relays):
   * commit them as tick `to` (above the current tick) to keep the source's tick
   * numbers; the ticks skipped carry no changes.
   */
  tick(to?: number): number {
    if (to !== undefined && (!Number.isInteger(to) || to <= this.t || to > 0xffffffff))
      throw new EncodeError('tick', `must be an integer above the current tick ${this.t}, not ${to}`);
    const t = (this.t = to ?? this.t + 1);
    const changed: Ent[] = this.freeEnts.pop() ?? [];
    const published: Version[] = this.freeVersions.pop() ?? [];
    const floor = t - this.window;
    for (const e of this.dirty) {
      e.dirty = false;
      if (e.despawnPending) {
        if (e.spawnTick >= 0) {
          e.despawnTick = t;
          changed.push(e);
        }
        continue;
      }
      if (e.spawnTick < 0) e.spawnTick = t;
      const v = e.cur;
      v.tick = t;
      v.older = e.top;
      e.top = v;
      changed.push(e);
      published.push(v);
    }
    this.dirty.length = 0;
    // each tick's list in id order, so that the lists of several ticks merge without a sort (see mergedLogs)
    for (let i = 1; i < changed.length; i++) {
      if (changed[i]!.id < changed[i - 1]!.id) {
        changed.sort(byId);
        break;
      }
    }
    this.log.set(t, changed);
    this.logV.set(t, published);
    // ticks leave the window in order (several at once after a jump: a relay's tick(to))
    const dropped = this.droppedLists;
    for (const [k, l] of this.log) {
      if (k > floor) break;
      this.log.delete(k);
      dropped.push(l);
    }
    // the versions published at or before the history floor are now the oldest any baseline needs: forget what came
    // before them (not recycled: a pooled version lives in the old generation, and every fresh value written into it
    // then costs the garbage collector more than a young version that dies young — measured)
    const hfloor = (this.kept = Math.max(this.kept, this.relaying ? floor : Math.min(t, this.oldestBaseline())));
    for (const [k, vs] of this.logV) {
      if (k > hfloor) break;
      this.logV.delete(k);
      for (let i = 0; i < vs.length; i++) vs[i]!.older = null;
      vs.length = 0;
      this.freeVersions.push(vs);
    }
    if (this.profiles.size > 1) {
      const all: Profile[] = [];
      const some: Profile[] = [];
      for (const p of this.profiles) {
        if (p.interest !== undefined) (p.refresh || p.everyTick ? all : some).push(p);
        if (p.acc.size > 0) for (const l of dropped) for (const e of l) if (e.despawnTick <= t) p.acc.delete(e);
      }
      if (all.length > 0) this.updateInterest(all, t, changed, true);
      if (some.length > 0) this.updateInterest(some, t, changed, false);
    } else {
      const p = this.publicProfile;
      if (p.acc.size > 0) for (const l of dropped) for (const e of l) if (e.despawnTick <= t) p.acc.delete(e);
    }
    for (const l of dropped) {
      l.length = 0;
      this.freeEnts.push(l);
    }
    dropped.length = 0;
    return t;
  }

  /** The oldest tick any client can still have as its baseline (see `kept`). */
  private oldestBaseline(): number {
    let min = Infinity;
    const reliable = this.delivery === 'reliable';
    for (const c of this.clients.values()) {
      let b: number;
      if (reliable) b = c.last === null ? Infinity : c.last.tick;
      else if (c.acked >= 0) b = c.acked;
      else {
        // nothing acknowledged yet: any tick it was sent may come back
        b = Infinity;
        for (const k of c.sent.keys()) {
          b = k;
          break;
        }
      }
      if (b < min) min = b;
    }
    return min;
  }

  /**
   * Re-run the interest hooks of `ps` at tick `t`: for every entity when
   * `all` (entity by entity, so that its values are read once for every
   * profile), else for the entities changed this tick; log the toggles.
   */
  private updateInterest(ps: Profile[], t: number, changed: Ent[], all: boolean): void {
    const np = ps.length;
    const toggled: Ent[][] = ps.map(() => []);
    const check = (e: Ent): void => {
      const alive = e.despawnTick === Infinity && e.spawnTick >= 0;
      const values = alive ? this.valuesOf(e.top ?? e.cur, e.def) : undefined;
      const id = e.id;
      for (let k = 0; k < np; k++) {
        const p = ps[k]!;
        const vis = values !== undefined && p.interest!(id, values);
        const w = p.slot >>> 5;
        const bit = 1 << (p.slot & 31);
        let v = e.vis;
        const was = v !== null && w < v.length && (v[w]! & bit) !== 0;
        if (vis === was) continue;
        if (v === null || w >= v.length) {
          const nv = new Uint32Array(w + 1);
          if (v !== null) nv.set(v);
          e.vis = v = nv;
        }
        if (vis) {
          v[w]! |= bit;
          p.visible.add(e);
        } else {
          v[w]! &= ~bit;
          p.visible.delete(e);
        }
        let arr = p.toggles.get(e);
        if (arr === undefined) p.toggles.set(e, (arr = []));
        arr.push(t);
        toggled[k]!.push(e);
      }
    };
    if (all) {
      // every entity (a viewpoint may have moved), and the ones that just left the world
      for (const e of this.ents.values()) check(e);
      for (const e of changed) if (e.despawnTick !== Infinity) check(e);
    } else for (const e of changed) check(e);
    const floor = t - this.window;
    for (let k = 0; k < np; k++) {
      const p = ps[k]!;
      p.refresh = false;
      p.log.set(t, toggled[k]!);
      // (several ticks at once after a jump)
      for (const [kk, old] of p.log) {
        if (kk > floor) break;
        p.log.delete(kk);
        for (const e of old) {
          const arr = p.toggles.get(e);
          if (arr === undefined) continue;
          while (arr.length >= 2 && arr[1]! <= floor) arr.splice(0, 2);
          if (arr.length === 0) p.toggles.delete(e);
        }
      }
    }
  }

  private valuesOf(v: Version, def: AnyEntityDef): Record<string, unknown> {
    return (v.values ??= valuesOf(def, v.raw, this.fb));
  }

  // --- clients ----------------------------------------------------------------

  addClient(key: ClientKey, opts: ClientOptions = {}): void {
    if (this.clients.has(key)) throw new EncodeError(`client ${String(key)}`, 'already added');
    let profile = this.publicProfile;
    if (opts.interest !== undefined || opts.owner !== undefined) {
      profile = new Profile(opts.interest, opts.owner);
      if (opts.interest !== undefined) {
        profile.slot = this.freeSlots.pop() ?? this.nextSlot++;
        profile.everyTick = opts.interestEvery !== 'change';
      }
      this.profiles.add(profile);
      if (opts.interest !== undefined) this.updateInterest([profile], this.t, [], true);
    }
    this.clients.set(key, { profile, sent: new Map(), acked: -1, last: null });
  }

  removeClient(key: ClientKey): void {
    const c = this.clients.get(key);
    if (c === undefined) return;
    this.clients.delete(key);
    if (c.profile !== this.publicProfile) {
      this.profiles.delete(c.profile);
      const slot = c.profile.slot;
      if (slot >= 0) {
        // clear the slot's bits before another profile takes it
        const w = slot >>> 5;
        const bit = ~(1 << (slot & 31));
        for (const e of c.profile.visible) if (e.vis !== null && w < e.vis.length) e.vis[w]! &= bit;
        this.freeSlots.push(slot);
      }
    }
  }

  /** Re-evaluate a client's interest in every entity at the next `tick()` (for `interestEvery: 'change'` clients whose viewpoint moved). */
  refreshInterest(key: ClientKey): void {
    this.client(key).profile.refresh = true;
  }

  private client(key: ClientKey): ClientState {
    const c = this.clients.get(key);
    if (c === undefined) throw new EncodeError(`client ${String(key)}`, 'no such client');
    return c;
  }

  /** What the server keeps for a client (for tests and monitoring). */
  clientStats(key: ClientKey): { ackedTick: number; nodes: number; heldOverrides: number } {
    const c = this.client(key);
    let over = 0;
    for (const b of c.sent.values()) over += b.node.over?.size ?? 0;
    return { ackedTick: c.acked, nodes: c.sent.size, heldOverrides: over };
  }

  /**
   * Apply a client's acknowledgement (the bytes of `ReplicationClient.ack()`).
   * Throws DecodeError on bad bytes or a schema mismatch; acks of unknown ticks are ignored.
   */
  receive(key: ClientKey, bytes: Uint8Array): void {
    const c = this.client(key);
    // the usual ack (magic, hash, 1..3-byte tick) without a reader object
    const n = bytes.length;
    if (n >= 6 && n <= 8 && bytes[0] === ACK_MAGIC && (bytes[1]! | (bytes[2]! << 8) | (bytes[3]! << 16) | (bytes[4]! << 24)) >>> 0 === this.hash) {
      let tick = -1;
      const b5 = bytes[5]!;
      if (n === 6 && b5 < 0x80) tick = b5;
      else if (n === 7 && b5 >= 0x80 && bytes[6]! < 0x80 && bytes[6] !== 0) tick = (b5 & 0x7f) | (bytes[6]! << 7);
      else if (n === 8 && b5 >= 0x80 && bytes[6]! >= 0x80 && bytes[7]! < 0x80 && bytes[7] !== 0)
        tick = (b5 & 0x7f) | ((bytes[6]! & 0x7f) << 7) | (bytes[7]! << 14);
      if (tick >= 0) {
        this.ack(c, tick);
        return;
      }
    }
    const r = new ByteReader(bytes);
    const magic = r.u8('magic');
    if (magic !== ACK_MAGIC) throw new DecodeError(0, 'magic', `0x${ACK_MAGIC.toString(16)} (ack)`, `0x${magic.toString(16)}`);
    const hash = r.u32le('schemaHash');
    if (hash !== this.hash) throw new DecodeError(1, 'schemaHash', `schema hash ${hex32(this.hash)} (the client has another schema)`, hex32(hash));
    const tick = r.vu32('tick');
    r.expectEnd('end');
    this.ack(c, tick);
  }

  private ack(c: ClientState, tick: number): void {
    if (tick > c.acked && c.sent.has(tick)) {
      c.acked = tick;
      // packets older than the ack can no longer be a baseline (acks only move forward)
      for (const k of c.sent.keys()) {
        if (k >= tick) break;
        c.sent.delete(k);
      }
    }
  }

  /** This tick's packet for a client (at most `mtu` bytes). The same bytes if asked twice in a tick. */
  packetFor(key: ClientKey): Uint8Array {
    const c = this.client(key);
    const t = this.t;
    if (t === 0) throw new EncodeError('tick', 'call tick() before packetFor()');
    const again = c.sent.get(t);
    if (again !== undefined) return again.packet;
    let base: Node | null;
    if (this.delivery === 'reliable') base = c.last;
    else base = c.acked >= 0 ? (c.sent.get(c.acked)?.node ?? null) : null;
    if (base !== null && (t - base.tick >= this.window || base.tick < this.kept)) base = null;
    const built = this.build(c.profile, base, t);
    c.sent.set(t, built);
    c.last = built.node;
    for (const k of c.sent.keys()) {
      if (k > t - this.window) break;
      c.sent.delete(k);
    }
    if (this.delivery === 'reliable') {
      c.acked = t;
      for (const k of c.sent.keys()) {
        if (k >= t) break;
        c.sent.delete(k);
      }
    }
    return built.packet;
  }

  /**
   * A world delta for relays: the public view (no interest, no owner fields)
   * from `fromTick` (which must be within the window; omit for a full state /
   * keyframe) to the current tick, with no size limit.
   */
  worldPacket(fromTick?: number): Uint8Array {
    const t = this.t;
    if (t === 0) throw new EncodeError('tick', 'call tick() before worldPacket()');
    let base: Node | null = null;
    if (fromTick !== undefined) {
      if (!Number.isInteger(fromTick) || fromTick < t - this.window + 1 || fromTick > t)
        throw new EncodeError('fromTick', `must be within the window (${t - this.window + 1}..${t})`);
      // (a first delta from a tick whose history is already cut: a full state instead)
      if (this.relaying || fromTick >= this.kept) base = { tick: fromTick, over: null };
    }
    this.relaying = true;
    return this.build(this.publicProfile, base, t, Infinity).packet;
  }

  // --- packets ------------------------------------------------------------------

  private visible(p: Profile, e: Ent, t: number): boolean {
    if (p.interest === undefined) return e.spawnTick >= 0 && e.spawnTick <= t && t < e.despawnTick;
    const arr = p.toggles.get(e);
    if (arr === undefined) return false;
    let n = 0;
    for (let i = 0; i < arr.length && arr[i]! <= t; i++) n++;
    return (n & 1) === 1;
  }

  private held(p: Profile, e: Ent, node: Node): Version | null {
    if (node.over !== null) {
      const o = node.over.get(e);
      if (o !== undefined) return o;
    }
    return this.visible(p, e, node.tick) ? e.versionAt(node.tick) : null;
  }

  private candidates(p: Profile, base: Node | null, t: number): Ent[] {
    const mark = ++this.markSeq;
    const out = this.cands;
    out.length = 0;
    if (base === null) {
      for (const e of p.interest === undefined ? this.ents.values() : p.visible) out.push(e);
      return out;
    }
    for (let k = base.tick + 1; k <= t; k++) {
      const l = this.log.get(k);
      if (l) addMarked(out, l, mark);
      if (p.interest !== undefined) {
        const pl = p.log.get(k);
        if (pl) addMarked(out, pl, mark);
      }
    }
    if (base.over !== null) addMarked(out, base.over.keys(), mark);
    return out;
  }

  /** The entities changed in ticks `from + 1 .. t`, in id order, each once: a merge of the (sorted) tick lists. */
  private mergedLogs(from: number, t: number): Ent[] {
    const mark = ++this.markSeq;
    let out = this.cands;
    let tmp = this.cands2;
    out.length = 0;
    for (let k = from + 1; k <= t; k++) {
      const l = this.log.get(k);
      if (l === undefined || l.length === 0) continue;
      if (out.length === 0) {
        for (let i = 0; i < l.length; i++) {
          const e = l[i]!;
          e.mark = mark;
          out.push(e);
        }
        continue;
      }
      tmp.length = 0;
      let i = 0;
      let j = 0;
      const na = out.length;
      const nb = l.length;
      while (i < na || j < nb) {
        if (j >= nb || (i < na && out[i]!.id <= l[j]!.id)) tmp.push(out[i++]!);
        else {
          const e = l[j++]!;
          if (e.mark !== mark) {
            e.mark = mark;
            tmp.push(e);
          }
        }
      }
      const x = out;
      out = tmp;
      tmp = x;
    }
    this.cands = out;
    this.cands2 = tmp;
    return out;
  }

  private encode(p: Profile, e: Ent, held: Version | null, target: Version): Enc {
    const def = e.def;
    const priv = def.hasOwnerFields && p.owner !== undefined;
    const ownV = priv && target.owner === p.owner;
    const s = this.scratch;
    if (held === null) {
      const k = ownV ? 1 : 0;
      if (target.create === undefined) target.create = [];
      const hit = target.create[k];
      if (hit !== undefined) return hit;
      s.reset();
      if (!writeBody(s, def, def.defaults, rawOf(def, target, ownV))) {
        // all fields at their defaults: just a mask of zeros
        for (let n = def.list.length; n > 0; n -= 32) s.write(0, Math.min(32, n));
      }
      const enc = this.stash(s);
      target.create[k] = enc;
      return enc;
    }
    const ownH = priv && held.owner === p.owner;
    const k = (ownH ? 1 : 0) | (ownV ? 2 : 0);
    // Cached on the newer version, keyed by the baseline version's tick (a held version is a published version of
    // the same entity: its tick names it). No reference between versions: a link from an old version to a newer one
    // keeps the newer ones alive through young-generation collections once the old one is promoted, and one from a
    // newer version to its baseline chains every version ever made — measured: nearly every version was promoted.
    const from = held.tick;
    let m: Map<number, Enc> | undefined;
    if (k === 0) {
      // the common case: two (baseline, encoding) slots, then a map
      if (target.from0 === from) return target.enc0!;
      if (target.from1 === from) return target.enc1!;
      m = target.from?.[0];
      if (m !== undefined) {
        const hit = m.get(from);
        if (hit !== undefined) return hit;
      }
    } else {
      if (target.from === undefined) target.from = [];
      m = target.from[k];
      if (m === undefined) target.from[k] = m = new Map();
      const hit = m.get(from);
      if (hit !== undefined) return hit;
    }
    s.reset();
    const some = writeBody(s, def, rawOf(def, held, ownH), rawOf(def, target, ownV));
    if (k === 0 && target.from0 < 0) {
      target.from0 = from;
      return (target.enc0 = some ? this.stash(s) : NO_CHANGE);
    }
    if (k === 0 && target.from1 < 0) {
      target.from1 = from;
      return (target.enc1 = some ? this.stash(s) : NO_CHANGE);
    }
    const enc = some ? this.stash(s) : NO_CHANGE;
    if (m === undefined) {
      if (target.from === undefined) target.from = [];
      target.from[0] = m = new Map();
    }
    m.set(from, enc);
    return enc;
  }

  /** Keep the bits written in `s` in the encoding arena (one small object per encoding, no array). */
  private stash(s: BitOut): Enc {
    const n = (s.pos + 31) >>> 5;
    let a = this.arena;
    let off = this.arenaPos;
    if (off + n > a.length) {
      this.arena = a = new Uint32Array(Math.max(ARENA_WORDS, n));
      off = 0;
    }
    const w = s.words;
    for (let i = 0; i < n; i++) a[off + i] = w[i]!;
    this.arenaPos = off + n;
    return { a, off, bits: s.pos };
  }

  private build(p: Profile, base: Node | null, t: number, mtu = this.mtu): Built {
    if (p.builtTick !== t) {
      emptyMap(p.built);
      // the record lists of the tick before are the starting point of this tick's (see below)
      const old = p.prevRecs;
      emptyMap(old);
      p.prevRecs = p.builtTick === t - 1 ? p.recs : old;
      p.recs = p.builtTick === t - 1 ? old : p.recs;
      emptyMap(p.recs);
      p.builtTick = t;
    }
    const key = base === null ? 'full' : base.over === null ? base.tick : base;
    const cached = mtu === this.mtu ? p.built.get(key) : undefined;
    if (cached !== undefined) return cached;
    // without interest and left-out entities, the records against a baseline are last tick's records against it with
    // those of this tick's changed entities redone: merged in id order, the others not even looked at
    const plain = base !== null && base.over === null && p.interest === undefined;
    const last = plain ? p.prevRecs.get(base.tick) : undefined;
    let cands: Ent[];
    if (last !== undefined) cands = EMPTY_ENTS;
    else if (plain) cands = this.mergedLogs(base!.tick, t);
    else {
      cands = this.candidates(p, base, t);
      // usually already in id order (one tick's changes, set in id order): sort only when not
      for (let i = 1; i < cands.length; i++) {
        if (cands[i]!.id < cands[i - 1]!.id) {
          cands.sort(byId);
          break;
        }
      }
    }
    // the records, in id order, in reused parallel arrays (no object per record)
    const recE = this.recE;
    const recHeld = this.recHeld;
    const recTarget = this.recTarget;
    const recEnc = this.recEnc;
    const recBits = this.recBits;
    let n = 0;
    if (last !== undefined) n = this.mergeRecords(p, base!, t, last);
    else for (let i = 0; i < cands.length; i++) if (this.record(p, cands[i]!, base, t, n)) n++;
    let total = 0;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      const id = recE[i]!.id;
      total += recBits[i]! + gammaBits(id - prev);
      prev = id;
    }
    if (plain) {
      const l: RecList = {
        e: recE.slice(0, n) as Ent[],
        held: recHeld.slice(0, n),
        target: recTarget.slice(0, n),
        enc: recEnc.slice(0, n),
        bits: recBits.slice(0, n),
      };
      p.recs.set(base!.tick, l);
    }
    const budget = Number.isFinite(mtu) ? (mtu - HEADER_MAX) * 8 : Infinity;
    let over: Map<Ent, Version | null> | null = null;
    let deferredCount = 0;
    if (total > budget) {
      const recs: Rec[] = [];
      for (let i = 0; i < n; i++) recs.push({ e: recE[i]!, held: recHeld[i]!, target: recTarget[i]!, enc: recEnc[i]!, bits: recBits[i]! });
      const [sent, deferred] = this.choose(p, recs, budget);
      n = sent.length;
      for (let i = 0; i < n; i++) {
        const r = sent[i]!;
        recE[i] = r.e;
        recHeld[i] = r.held;
        recTarget[i] = r.target;
        recEnc[i] = r.enc;
        recBits[i] = r.bits;
      }
      if (deferred.length > 0) {
        over = new Map();
        for (const r of deferred) {
          over.set(r.e, r.held);
          p.acc.set(r.e, (p.acc.get(r.e) ?? 0) + 1);
        }
      }
      deferredCount = deferred.length;
    }
    if (p.acc.size > 0) for (let i = 0; i < n; i++) p.acc.delete(recE[i]!);
    // (the record arrays keep their references until the next build overwrites them)
    const built: Built = { node: { tick: t, over }, packet: this.assemble(t, base, deferredCount, n) };
    if (mtu === this.mtu) p.built.set(key, built);
    return built;
  }

  /** The record of entity `e` against `base` at tick `t` as record `n` of the record arrays; false when there is none. */
  private record(p: Profile, e: Ent, base: Node | null, t: number, n: number): boolean {
    const held = base === null ? null : this.held(p, e, base);
    const target = this.visible(p, e, t) ? e.top : null;
    if (held === target) return false;
    let enc: Enc;
    let bits: number;
    if (target === null) {
      enc = NO_CHANGE;
      bits = 2;
    } else {
      enc = this.encode(p, e, held, target);
      if (enc === NO_CHANGE) return false;
      bits = held === null ? 2 + this.typeBits + enc.bits : 1 + enc.bits;
    }
    this.recE[n] = e;
    this.recHeld[n] = held;
    this.recTarget[n] = target;
    this.recEnc[n] = enc;
    this.recBits[n] = bits;
    return true;
  }

  /**
   * The records against `base` at tick `t` from `last`, the records against it at tick `t - 1`: those of the
   * entities changed at `t` redone, the others kept (nothing about them changed), merged in id order. Returns the count.
   */
  private mergeRecords(p: Profile, base: Node, t: number, last: RecList): number {
    const log = this.log.get(t) ?? EMPTY_ENTS;
    const mark = ++this.markSeq;
    for (let i = 0; i < log.length; i++) log[i]!.mark = mark;
    const le = last.e;
    const nl = le.length;
    let n = 0;
    let i = 0;
    let j = 0;
    while (i < nl || j < log.length) {
      if (j >= log.length || (i < nl && le[i]!.id <= log[j]!.id)) {
        const e = le[i]!;
        if (e.mark !== mark) {
          this.recE[n] = e;
          this.recHeld[n] = last.held[i]!;
          this.recTarget[n] = last.target[i]!;
          this.recEnc[n] = last.enc[i]!;
          this.recBits[n] = last.bits[i]!;
          n++;
        }
        i++;
      } else if (this.record(p, log[j++]!, base, t, n)) n++;
    }
    return n;
  }

  /** Priority accumulator: the longest-deferred first, then by id; upper-bound sizes so the packet fits. */
  private choose(p: Profile, recs: Rec[], budget: number): [Rec[], Rec[]] {
    const order = recs.slice().sort((a, b) => (p.acc.get(b.e) ?? 0) - (p.acc.get(a.e) ?? 0) || a.e.id - b.e.id);
    const sent: Rec[] = [];
    const deferred: Rec[] = [];
    let used = 0;
    for (const r of order) {
      const need = r.bits + gammaBits(r.e.id);
      if (used + need <= budget) {
        used += need;
        sent.push(r);
      } else deferred.push(r);
    }
    sent.sort((a, b) => a.e.id - b.e.id);
    return [sent, deferred];
  }

  /** The packet of the first `n` records of the record arrays. */
  private assemble(t: number, base: Node | null, deferred: number, n: number): Uint8Array {
    const out = this.pkt;
    out.reset();
    const recE = this.recE;
    const recHeld = this.recHeld;
    const recTarget = this.recTarget;
    const recEnc = this.recEnc;
    const typeBits = this.typeBits;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      const id = recE[i]!.id;
      writeGamma(out, id - prev);
      prev = id;
      if (recTarget[i] === null)
        out.write(3, 2); // despawn: 1, 1
      else if (recHeld[i] === null) {
        out.write(1, 2); // create: 1, 0
        out.write(recE[i]!.type, typeBits);
        const enc = recEnc[i]!;
        out.appendFrom(enc.a, enc.off, enc.bits);
      } else {
        out.write(0, 1); // update: 0
        const enc = recEnc[i]!;
        out.appendFrom(enc.a, enc.off, enc.bits);
      }
    }
    // header: magic, schema hash, then four varints
    const h = this.head;
    h[0] = STATE_MAGIC;
    const hash = this.hash;
    h[1] = hash & 0xff;
    h[2] = (hash >>> 8) & 0xff;
    h[3] = (hash >>> 16) & 0xff;
    h[4] = hash >>> 24;
    let k = 5;
    k = putVarint(h, k, t);
    k = putVarint(h, k, base === null ? 0 : t - base.tick);
    k = putVarint(h, k, deferred);
    k = putVarint(h, k, n);
    const packet = new Uint8Array(k + ((out.pos + 7) >>> 3));
    for (let i = 0; i < k; i++) packet[i] = h[i]!;
    out.bytesInto(packet, k);
    return packet;
  }
}

const EMPTY_ENTS: Ent[] = [];

/** Words per encoding arena (a new one when full; old ones live as long as encodings cached in them). */
const ARENA_WORDS = 16384;

/**
 * Empty a long-lived map by deleting its keys, not with `clear()`: `clear()` gives the map a new table and leaves the
 * old one, still holding every entry, as garbage in the old generation, where it keeps those entries' young objects
 * (versions, packets) alive through every minor collection until the next full one — measured on S4: scavenge pauses
 * 1,680 ms against 252 ms over the same run, and about 2x the server time per tick.
 */
function emptyMap<K, V>(m: Map<K, V>): void {
  for (const k of m.keys()) m.delete(k);
}

function byId(a: Ent, b: Ent): number {
  return a.id - b.id;
}

/** Unsigned LEB128 of v (< 2^32) at `k`; returns the next offset. */
function putVarint(h: Uint8Array, k: number, v: number): number {
  while (v >= 0x80) {
    h[k++] = (v & 0x7f) | 0x80;
    v >>>= 7;
  }
  h[k++] = v;
  return k;
}

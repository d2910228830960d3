/**
 * The server side of the replication engine.
 *
 * The world is a set of entities with working values (`set()` writes them in
 * place) and published values; a `tick()` publishes the changes made since the
 * previous tick, in place, and keeps what they replaced as undo rows (see
 * model.ts History). A *version* of an entity is named by the tick that
 * published it; no object is made per change, so the garbage collector has
 * nothing to copy per tick. What a client holds after a packet is a *node*:
 * the exact world as that client sees it at the packet's tick (a canonical
 * node, `over === null`), except for the entities the packet left out, whose
 * held versions are kept in `over`. Clients that see the same world (no
 * interest hook, no owned fields) share a profile; a packet is built once per
 * (profile, base node, tick) and shared, and each entity record once per
 * (held version, new version) and shared.
 */
import { popcount32 } from '../core/bits.js';
import { ByteReader } from '../core/reader.js';
import { DecodeError, EncodeError } from '../core/errors.js';
import { BitOut, bitLength, gammaBits, writeGamma } from './bits.js';
import { maxRecordBits, planOf, publishFixed, publishWide, writeBody, writeFixedMasked, writeMaskedPairs, writeMaskedSplit } from './codec.js';
import { checkDefs, schemaHash, type AnyEntityDef, type EntityDef, type FieldInfo, type Fields, type ValuesOf } from './schema.js';
import { FloatBits, assignRaw, fromRaw, rawEq, toRaw, valuesOf } from './values.js';
import { ACK_MAGIC, BUNDLE_MAGIC, HEADER_MAX, STATE_MAGIC, hex32, newSession, varintBytes } from './wire.js';

import {
  History,
  NO_ARENA,
  Profile,
  Ent,
  SentStore,
  addMarked,
  recCapacity,
  newRecList,
  numLayout,
  Table,
  DMASK,
  DIRTY,
  OWNER,
  ROW_META,
  type ColumnArray,
  type Built,
  ClientState,
  type Node,
  type Rec,
  type RecList,
  type TickIds,
  type UsualPart,
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
  /**
   * Largest packet in bytes (default 1200): an integer, at least the packet header and the largest record of any
   * entity type (the constructor says how much), or Infinity (no limit).
   */
  mtu?: number;
  /** Ticks of history kept per client for baselines (default 32, 1..64). Older acks get a full state. */
  baselineWindow?: number;
  /**
   * A client that missed ticks (acked delivery, baseline older than the tick
   * before) gets the packets of the ticks since its baseline as one bundle,
   * when they fit the mtu and repeat few entities (at most a quarter more
   * records than one delta from its baseline would have): they were made for
   * the clients that kept up, so the bundle costs a copy. Default true; false:
   * always one delta from the baseline (the fewest bytes).
   */
  bundles?: boolean;
  /**
   * The session in this server's packets (a u32 other than 0; default random): a client that followed another
   * server (this one restarted) starts again from this one's full state instead of taking its deltas against ticks
   * of the other one. Give one only to make two servers' packets comparable byte for byte (tests, tools).
   */
  session?: number;
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

/** The symbol-keyed slot of a handle's entity (no clash with any field name). */
const H_ENT = Symbol('entity');
const H_TBL = Symbol('table');
const H_NB = Symbol('row');
const H_SER = Symbol('serial');

/**
 * A live entity's working values as properties (`ReplicationServer.handle`):
 * reading one gives its current value; assigning one validates and sets it,
 * as `set(id, { [name]: value })` does, without the values object and the
 * name lookup (the fastest way to change fields every tick).
 */
export type EntityHandle<F extends Fields> = { -readonly [K in keyof F]: ValuesOf<F>[K] };

/** The typed array of each column kind (see `ReplicationServer.columns`). */
interface ColumnTypes {
  f32: Float32Array;
  u8: Uint8Array;
  u16: Uint16Array;
  u32: Uint32Array;
  i8: Int8Array;
  i16: Int16Array;
  i32: Int32Array;
}

/** A type's column fields as typed arrays by name (see `ReplicationServer.columns`). */
export type ColumnsOf<F extends Fields> = {
  readonly [K in keyof F as F[K]['kind'] extends keyof ColumnTypes ? K : never]: F[K]['kind'] extends keyof ColumnTypes ? ColumnTypes[F[K]['kind']] : never;
};

/** Replication server: a world of entities, and one packet per client per tick. */
export class ReplicationServer<Defs extends readonly AnyEntityDef[] = readonly AnyEntityDef[]> {
  readonly defs: Defs;
  readonly hash: number;
  /** This server's session (see `ServerOptions.session`), in every packet it makes. */
  readonly session: number;
  readonly delivery: Delivery;
  readonly mtu: number;
  readonly window: number;
  private readonly bundles: boolean;
  private readonly typeIndex = new Map<AnyEntityDef, number>();
  /** Each type's rows of numeric values (by type index; see Table). */
  private readonly tables: Table[];
  /** The tables whose columns are enabled (scanned for changes at every tick). */
  private readonly colTables: Table[] = [];
  /** The current tick's log as ids (its `logIdsOf`) and serials (`logKeys`), and its tick. */
  private logId: Uint32Array = new Uint32Array(0);
  private logSer = new Int32Array(256);
  private logKeysTick = -1;
  /** unionMarks' marks (by id, below BY_ID: the stamp of the last count that met the id), stamp, and ids past BY_ID. */
  private unionMark = new Uint8Array(0);
  private unionStamp = 0;
  private readonly unionBig = new Set<number>();
  /** unionSize's bit set (word `i`: ids `32 (lo + i) ..`). */
  private unionBits = new Int32Array(64);
  /** The tick list's ids as `unionSize` counts them before the tick's usual packet is made (its bit set once a tick). */
  private readonly logIds1: TickIds = { tick: -1, ids: new Uint32Array(0), n: 0, bits: new Int32Array(0), lo: 0, nw: 0, bitsTick: -1 };
  /** scanColumns' changed rows. */
  private scanList = new Int32Array(0);
  /** scanPair32's changed rows of its two columns (the first `cap` slots for the first column, the rest for the second). */
  private scanPend = new Int32Array(0);
  /** What the loads meant only to bring memory into the cache read (kept, so that they are not optimised away). */
  private sink = 0;
  /** The handle class of each type (by type index), made on first use. */
  private readonly handleTypes: (new (e: Ent) => object)[] = [];
  private readonly typeBits: number;
  private readonly ents = new Map<number, Ent>();
  /** Live entities by id for ids below BY_ID (the usual dense ids), beside `ents`: one array load in `set()`. */
  private readonly byId: (Ent | undefined)[] = [];
  /**
   * The entities changed since the last tick: the first `dirtyN`. (Hot arrays
   * are never shortened: V8 frees an array's storage at `length = 0`, and
   * growing it again allocates every tick.)
   */
  private readonly dirty: (Ent | undefined)[] = [];
  private dirtyN = 0;
  private readonly log = new Map<number, Ent[]>();
  /** Undo rows of the published changes (the version history). */
  private readonly hist = new History();
  private readonly clients = new Map<ClientKey, ClientState>();
  /** The clients of the integer keys 0 .. SMALL_KEYS - 1 again, by key: `receive` and `packetFor` find them without a map lookup. */
  private readonly smallKeys: (ClientState | undefined)[] = [];
  /** The clients' sent packets (see Sent). */
  private readonly sentStore: SentStore;
  private readonly publicProfile = new Profile(undefined, undefined);
  private readonly freeSlots: number[] = [];
  private nextSlot = 0;
  private readonly profiles = new Set<Profile>();
  private readonly fb = new FloatBits();
  private readonly scratch = new BitOut(256);
  /** Writes into the encoding arena (see publish). */
  private readonly arenaOut = new BitOut(0);
  private readonly pkt = new BitOut(512);
  /**
   * This tick's usual packet body as publishRun writes it (see buildNext): the
   * records of the entities it published, in the order published, written into
   * the encoding arena with each update cached where its record has it, in
   * `segN` pieces (`segA[i]`'s bits `segFrom[i]` .. `segTo[i] - 1`; one per run
   * and arena), `streamBits` in all, with their ids, serials and start bits in
   * `streamRecs`; usable while `streamOk` (ids ascending, and no other entity
   * changed at the tick: every packet is built at the current tick).
   */
  private readonly segA: Uint32Array[] = [];
  private segFrom: Int32Array = new Int32Array(8);
  private segTo: Int32Array = new Int32Array(8);
  private segN = 0;
  private streamBits = 0;
  private readonly streamRecs = newRecList();
  /** The entities (and their fields' bits) that the change scan or tick() hands to publishRun. */
  private readonly runE: (Ent | undefined)[] = [];
  private runM = new Int32Array(256);
  private streamOk = false;
  private streamPrev = 0;
  private readonly setIdx: number[] = [];
  /** set()'s validated numeric values (`setRaw`: the others), by position in `setIdx`. */
  private readonly setNum: Float64Array;
  private readonly head = new Uint8Array(HEADER_MAX);
  private arena = new Uint32Array(ARENA_WORDS);
  /**
   * The arena after this one, made when this one was taken: by the time it is used it has usually been through the
   * young generation's collections, so that storing it into an (old) entity's encoding slot takes the write barrier's
   * fast path.
   */
  private nextArena = new Uint32Array(ARENA_WORDS);
  private slab = new Uint8Array(0);
  private slabPos = 0;
  /** Set while `build` makes a profile's usual packet: `finish` puts it in that profile's part slab (see partBytes). */
  private partTo: Profile | null = null;
  private arenaPos = 0;
  /**
   * The records of the packet being built (the first n), in id order, as a
   * record list (parallel arrays, no object per record): when they all go into
   * the packet the list itself is handed over (see handOver).
   */
  private cur: RecList = newRecList();
  private readonly freeRecLists: RecList[] = [];
  private readonly setRaw: unknown[] = [];
  // encode()'s result besides its bit count: where the encoded body is
  private encA: Uint32Array = NO_ARENA;
  private encOff = 0;
  /** Scratch raw arrays: a held version's values, and values with owner-only fields at their defaults. */
  private readonly heldRaw: unknown[] = [];
  /** encodeSince's old values by field index: numeric ones, and the others. */
  private readonly sinceN = new Float64Array(32);
  private readonly sinceO: unknown[] = [];
  private readonly pubRawH: unknown[] = [];
  private readonly pubRawV: unknown[] = [];
  /** Scratch raw arrays: an entity's published values (numeric and other fields together), and for `valuesOf`. */
  private readonly pubRawN: unknown[] = [];
  private readonly valRaw: unknown[] = [];
  /** The owner of the version `valuesAt` last read. */
  private atOwner: OwnerTag | undefined = undefined;
  private nextId = 1;
  private t = 0;
  private markSeq = 0;
  /** updateInterest's entities to check, their values, ids and visibility bits. */
  private readonly checkEnts: (Ent | undefined)[] = [];
  private readonly checkVals: (Record<string, unknown> | undefined)[] = [];
  private readonly checkIds: number[] = [];
  private checkBits = new Int32Array(0);
  /**
   * addSeen's lists of one tick's log by interest slot, as offsets into the log: slot `s`'s are
   * `seenIdx[seenStart[s] .. seenStart[s + 1])`, in log order. Made for `seenLog` at the second profile that asks
   * while the visibility bits are those of `seenEpoch` (`visEpoch` moves whenever they change).
   */
  private seenLog: readonly Ent[] | null = null;
  private seenEpoch = -1;
  private seenReady = false;
  private visEpoch = 0;
  private seenStart = new Int32Array(0);
  private seenIdx = new Int32Array(0);
  /** Emptied per-tick lists for reuse. */
  /** This tick's changed entities as they are published (the first `changedN`), before the tick's list is cut from them. */
  private readonly changedBuf: Ent[] = [];
  /** Entities in changedBuf (the column scan's published ones go first: see scanColumns). */
  private changedN = 0;
  private readonly droppedLists: Ent[][] = [];
  /** Number of entries of `cands` that `candidates` / `mergedLogs` filled (the arrays are never shortened: see `dirtyN`). */
  private candN = 0;
  private cands: Ent[] = [];
  private cands2: Ent[] = [];
  /** `mergedLogs`' ids beside `cands` / `cands2`, so that its merges compare ids without reading the entities. */
  private candIds = new Uint32Array(0);
  private candIds2 = new Uint32Array(0);
  /** Tick lists' ids (see `logIdsOf`): made when a merge first needs them, dropped with their list. */
  private readonly logIds = new Map<number, Uint32Array>();
  /** The newest tick that published a despawn (-1: none): before it, no id has two entities in the tick lists. */
  private lastDespawn = -1;
  /** `mergedBits`' bit set of ids (all zero between calls) and its entities by id (all undefined between calls). */
  private mergeBits = new Int32Array(0);
  private readonly mergeSlot: (Ent | undefined)[] = [];
  /**
   * The oldest tick whose world the version history still holds. No client
   * baseline is older than the newest tick it acknowledged (acked delivery) or
   * was last sent (reliable), so history below the oldest such tick is cut at
   * once instead of after the whole window: undo rows live briefly.
   * `worldPacket(fromTick)` (relays) keeps the whole window.
   */
  private kept = 0;
  private relaying = false;
  /** Some packet left entities out (then nodes can hold versions older than `kept`: see historyFloor). */
  private anyOver = false;

  constructor(opts: ServerOptions & { entities: Defs }) {
    checkDefs(opts.entities);
    this.defs = opts.entities;
    this.hash = schemaHash(opts.entities);
    this.delivery = opts.delivery ?? 'acked';
    this.mtu = opts.mtu ?? 1200;
    this.window = opts.baselineWindow ?? 32;
    this.bundles = opts.bundles ?? true;
    this.session = opts.session ?? newSession();
    if (!Number.isInteger(this.session) || this.session < 1 || this.session > 0xffffffff) throw new EncodeError('session', 'must be an integer 1..2^32-1');
    // (NaN or a numeric string would pass the size check below and turn the limit off in buildNew; the least
    // workable mtu, the header and the largest record of any type, is checked below)
    if (typeof this.mtu !== 'number' || !((Number.isInteger(this.mtu) && this.mtu > HEADER_MAX) || this.mtu === Infinity))
      throw new EncodeError(
        'mtu',
        `must be an integer above ${HEADER_MAX} (bytes) or Infinity, not ${typeof this.mtu === 'string' ? JSON.stringify(this.mtu) : String(this.mtu)}`,
      );
    if (!Number.isInteger(this.window) || this.window < 1 || this.window > 64) throw new EncodeError('baselineWindow', 'must be an integer 1..64');
    this.sentStore = new SentStore(this.window);
    opts.entities.forEach((d, i) => this.typeIndex.set(d, i));
    this.tables = opts.entities.map((d) => {
      const l = numLayout(d);
      return new Table(d, l.col, l.nn);
    });
    this.setNum = new Float64Array(Math.max(1, ...opts.entities.map((d) => d.list.length)));
    this.typeBits = bitLength(opts.entities.length - 1);
    for (const tbl of this.tables) {
      // (a word more than the bits take: a write may set the word after its last bit)
      const w = Math.ceil(maxRecordBits(tbl.def, this.typeBits) / 32) + 1;
      tbl.encWords = w <= ARENA_WORDS / 16 ? w : 0;
      tbl.plan = planOf(tbl.def);
      tbl.fastPub = !testHooks.generalOnly && tbl.def.list.length <= 31 && !tbl.def.hasOwnerFields && tbl.encWords > 0;
    }
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
    const e = new Ent(id, def as unknown as AnyEntityDef, type, raw, opts.owner, this.tables[type]!);
    this.nextId = Math.max(this.nextId, id + 1);
    this.addEnt(e);
    this.markDirty(e);
    return id;
  }

  private addEnt(e: Ent): void {
    this.ents.set(e.id, e);
    if (e.id < BY_ID) {
      while (this.byId.length < e.id) this.byId.push(undefined);
      this.byId[e.id] = e;
    }
  }

  /** The live entity `id` (undefined for anything else, ids of other types included). */
  private find(id: number): Ent | undefined {
    return (id | 0) === id && id > 0 && id < BY_ID ? this.byId[id] : this.ents.get(id);
  }

  private live(id: number): Ent {
    const e = this.find(id);
    if (e === undefined) throw new EncodeError(`entity ${id}`, 'no such live entity');
    return e;
  }

  private markDirty(e: Ent): void {
    const v = e.tbl.v;
    if (v[e.nb + DIRTY] === 0) {
      v[e.nb + DIRTY] = 1;
      this.dirty[this.dirtyN++] = e;
    }
  }

  /** Change some fields (validated; EncodeError on a bad value, nothing changed then). */
  set(id: number, values: Record<string, unknown>): void {
    const e = this.find(id);
    if (e === undefined) throw new EncodeError(`entity ${id}`, 'no such live entity');
    const def = e.def;
    const idx = this.setIdx;
    const raws = this.setRaw;
    const nums = this.setNum;
    const cur = e.work;
    const nv = e.tbl.v;
    const nb = e.nb;
    const col = e.col;
    let n = 0;
    const list = def.list;
    const few = list.length <= 8;
    for (const name in values) {
      // a few fields: found by name identity (for-in's names and the definition's are usually the same strings)
      let fi: FieldInfo | undefined;
      if (few) for (let i = 0; i < list.length && fi === undefined; i++) if (list[i]!.name === name) fi = list[i];
      if (fi === undefined) fi = def.byName.get(name);
      if (fi === undefined) throw new EncodeError(`${def.name}.${name}`, `no field ${name} in ${def.name}`);
      const v = values[name];
      const k = fi.index;
      const c = col[k]!;
      if (e.tbl.cols !== null && e.tbl.colBy[k] !== undefined) {
        // a column field: its column is its working value (validated now, written with the others below)
        nums[n] = toRaw(fi.f, v, `${def.name}.${name}`, this.fb) as number;
        idx[n++] = k;
        continue;
      }
      if (fi.kind === 'f32' && typeof v === 'number') {
        // the common float field without the generic converter (and its path string); its bits stay unboxed
        const b = this.fb.f32Bits(v);
        if (nv[nb + c] === b) continue;
        nums[n] = b;
        idx[n++] = k;
        continue;
      }
      const r = toRaw(fi.f, v, `${def.name}.${name}`, this.fb);
      if (c >= 0) {
        // (numbers: equal raws are ===)
        if (nv[nb + c] === r) continue;
        nums[n] = r as number;
      } else {
        const old = cur[k];
        if (old === r || rawEq(fi.f, old, r)) continue;
        raws[n] = r;
      }
      idx[n++] = k;
    }
    if (n === 0) return;
    let m = 0;
    const colBy = e.tbl.cols !== null ? e.tbl.colBy : null;
    for (let i = 0; i < n; i++) {
      const k = idx[i]!;
      const c = col[k]!;
      const cl = colBy === null ? undefined : colBy[k];
      if (cl !== undefined) {
        // (the change scan at the next tick takes it)
        cl.raw[(nb - ROW_META) / e.tbl.stride] = nums[i]!;
        continue;
      }
      if (c >= 0) nv[nb + c] = nums[i]!;
      else {
        cur[k] = raws[i];
        raws[i] = undefined;
      }
      if (k < 32) m |= 1 << k;
      else e.dirtyAll = true;
    }
    if (m === 0 && !e.dirtyAll) return;
    nv[nb + DMASK] = nv[nb + DMASK]! | m;
    this.markDirty(e);
  }

  /**
   * A handle on the live entity `id` of type `def`: its fields as properties
   * (see `EntityHandle`). Assigning a field of a despawned entity throws
   * EncodeError, as `set` does.
   */
  handle<N extends string, F extends Fields>(def: EntityDef<N, F>, id: number): EntityHandle<F> {
    const e = this.live(id);
    if (e.def !== (def as unknown as AnyEntityDef)) throw new EncodeError(`entity ${id}`, `is a ${e.def.name}, not a ${def.name}`);
    const H = (this.handleTypes[e.type] ??= this.handleType(e.def));
    return new H(e) as unknown as EntityHandle<F>;
  }

  /** The handle class of a type: one accessor per field on its prototype. */
  private handleType(def: AnyEntityDef): new (e: Ent) => object {
    // a handle keeps its entity's row (table, offset, owner serial): a numeric field's assignment touches the row only
    class Handle {
      [H_ENT]: Ent;
      [H_TBL]: Table;
      [H_NB]: number;
      [H_SER]: number;
      constructor(e: Ent) {
        this[H_ENT] = e;
        this[H_TBL] = e.tbl;
        this[H_NB] = e.nb;
        this[H_SER] = e.serial;
      }
    }
    const server = this;
    const col = this.tables[this.typeIndex.get(def)!]!.col;
    const fb = this.fb;
    for (const fi of def.list) {
      const c = col[fi.index]!;
      const k = fi.index;
      const bit = k < 32 ? 1 << k : 0;
      const general = function (this: Handle, v: unknown) {
        server.handleSetNum(this[H_TBL], this[H_NB], this[H_SER], this[H_ENT], fi, c, v);
      };
      Object.defineProperty(Handle.prototype, fi.name, {
        enumerable: true,
        get(this: Handle) {
          return server.handleGet(this[H_ENT], fi);
        },
        set:
          c < 0
            ? function (this: Handle, v: unknown) {
                server.handleSet(this[H_ENT], fi, v);
              }
            : fi.kind === 'f32' && bit !== 0
              ? function (this: Handle, v: unknown) {
                  // handleSetNum of a number into an f32 field that is no column, of a live entity, inline; anything
                  // else (a bad value, a despawned entity, a column) the general way
                  const tbl = this[H_TBL];
                  const a = tbl.v;
                  const nb = this[H_NB];
                  if (typeof v !== 'number' || tbl.cols !== null || a[nb + OWNER] !== this[H_SER]) {
                    general.call(this, v);
                    return;
                  }
                  const r = fb.f32Bits(v);
                  if (a[nb + c] === r) return;
                  a[nb + c] = r;
                  a[nb + DMASK] = a[nb + DMASK]! | bit;
                  if (a[nb + DIRTY] === 0) {
                    a[nb + DIRTY] = 1;
                    server.dirty[server.dirtyN++] = this[H_ENT];
                  }
                }
              : general,
      });
    }
    return Handle;
  }

  private handleGet(e: Ent, fi: FieldInfo): unknown {
    if (e.despawnPending) throw new EncodeError(`entity ${e.id}`, 'no such live entity');
    const c = e.col[fi.index]!;
    return fromRaw(fi.f, c >= 0 ? this.workNum(e, fi.index, c) : e.work[fi.index], this.fb);
  }

  /** The working raw value of numeric field `k` (numeric slot `c`) of `e`: its column's, if it has one. */
  private workNum(e: Ent, k: number, c: number): number {
    const tbl = e.tbl;
    const cl = tbl.cols === null ? undefined : tbl.colBy[k];
    return cl !== undefined ? cl.raw[(e.nb - ROW_META) / tbl.stride]! : tbl.v[e.nb + c]!;
  }

  /**
   * The working values of a type's `f32`, `u8`, `u16`, `u32`, `i8`, `i16` and
   * `i32` fields as typed arrays (`Float32Array` for f32, the matching integer
   * array for the others) indexed by an entity's `rowOf(id)`: writing
   * `cols.x[row] = 1.5` changes entity `row`'s `x`, and `tick()` finds the
   * changes by comparing every row with what it saw last (no per-write
   * bookkeeping: the cheapest way to move many entities). `set()` and handles
   * write the same arrays. Typed-array stores convert as they always do (a
   * `u8` column keeps `v & 255`, an `f32` one `Math.fround(v)`): no
   * validation. A row is an entity's while it lives; writes to the row of a
   * despawned entity are ignored until a spawn reuses it. The object is the
   * same for the server's life, but its arrays are replaced when the type's
   * table grows (a spawn beyond its capacity, which doubles): read them from
   * it again after spawning.
   */
  columns<N extends string, F extends Fields>(def: EntityDef<N, F>): ColumnsOf<F> {
    const type = this.typeIndex.get(def as unknown as AnyEntityDef);
    if (type === undefined) throw new EncodeError(def.name, 'entity definition not in this server’s schema');
    const tbl = this.tables[type]!;
    if (tbl.cols === null) {
      tbl.enableColumns();
      this.colTables.push(tbl);
    }
    return tbl.user as unknown as ColumnsOf<F>;
  }

  /** The row of the live entity `id` in its type's `columns()`. */
  rowOf(id: number): number {
    const e = this.live(id);
    return (e.nb - ROW_META) / e.tbl.stride;
  }

  /**
   * The change scan of a table's columns (see `columns`): a row whose column
   * value differs from what the scan saw last gets it as its working value and
   * is marked changed. First every column on its own (a loop for the column's
   * array type: see scanColumn), noting the rows that changed and which
   * fields; then each changed row once: its change mask and dirty flag.
   */
  private scanColumns(tbl: Table, t: number): void {
    const cols = tbl.cols!;
    const cap = tbl.capacity;
    if (this.scanList.length < cap) {
      this.scanList = new Int32Array(cap);
      this.scanPend = new Int32Array(2 * cap);
    }
    const list = this.scanList;
    const cm = tbl.scanMask;
    const v = tbl.v;
    const stride = tbl.stride;
    let nr = 0;
    // one load from each cache line of the columns first, all independent: their misses overlap, where the scan's
    // own loads wait behind its branches
    let sink = 0;
    for (let j = 0; j < cols.length; j++) {
      const cl = cols[j]!;
      const n = Math.ceil(tbl.top / cl.per);
      const r64 = cl.raw64;
      const s64 = cl.seen64;
      for (let i = 0; i < n; i += 8) sink += r64[i]! + s64[i]!;
    }
    this.sink = sink;
    for (let j = 0; j < cols.length; j++) {
      const cl = cols[j]!;
      // (fields 31 and up share bit 31: see below)
      const bit = cl.k < 31 ? 1 << cl.k : 1 << 31;
      const n = Math.ceil(tbl.top / cl.per);
      const raw = cl.raw;
      if (raw instanceof Uint32Array) {
        // two 32-bit columns at once (x and y of a position): one branch per two rows for both (see scanPair32)
        const nx = cols[j + 1];
        if (nx !== undefined && nx.raw instanceof Uint32Array) {
          const bit2 = nx.k < 31 ? 1 << nx.k : 1 << 31;
          const sa = cl.seen as Uint32Array;
          const sb = nx.seen as Uint32Array;
          nr = scanPair32(
            raw,
            sa,
            cl.raw64,
            cl.seen64,
            nx.raw,
            sb,
            nx.raw64,
            nx.seen64,
            n,
            v,
            stride,
            ROW_META + cl.c,
            ROW_META + nx.c,
            cm,
            bit,
            bit2,
            list,
            nr,
            this.scanPend,
            cap,
          );
          j++;
        } else nr = scanColumn32(raw, cl.seen as Uint32Array, cl.raw64, cl.seen64, n, cl.per, v, stride, ROW_META + cl.c, cm, bit, list, nr);
      } else nr = scanColumnAny(raw, cl.seen, cl.raw64, cl.seen64, n, cl.per, v, stride, ROW_META + cl.c, cm, bit, list, nr);
    }
    const def = tbl.def;
    const wide = def.list.length > 32;
    // rows that only the scan changed are published in one run after it (see publishRun)
    const fast = tbl.fastPub;
    const ents = tbl.ents;
    const buf = this.changedBuf;
    let nc = this.changedN;
    if (fast) {
      // one load from each changed row's entity first, all independent (their misses overlap; see tick)
      sink = 0;
      // (and the row's last published value: a row spans two cache lines)
      const last = ROW_META + 2 * tbl.nn - 1;
      for (let i = 0; i < nr; i++) {
        const r = list[i]!;
        const e = ents[r];
        // (the fields publishRun reads and writes: the entity's first 16, on two cache lines; see Ent)
        if (e !== undefined) sink += e.id + e.ccBits + (e.pubOwner === undefined ? 0 : 1) + v[r * stride + last]!;
      }
      this.sink = sink;
    }
    const runE = this.runE;
    if (this.runM.length < nr) this.runM = new Int32Array(Math.max(nr, 2 * this.runM.length));
    const runM = this.runM;
    let nrun = 0;
    for (let i = 0; i < nr; i++) {
      const r = list[i]!;
      const m = cm[r]!;
      cm[r] = 0;
      const nb = r * stride + ROW_META;
      // (a free row, or a despawned entity's: its values are not read)
      if (v[nb + OWNER] === 0) continue;
      if (fast && v[nb + DIRTY] === 0) {
        const e = ents[r]!;
        if (e.spawnTick >= 0 && !e.despawnPending) {
          runE[nrun] = e;
          runM[nrun++] = m;
          buf[nc++] = e;
          continue;
        }
      }
      // bit 31: field 31 changed or one past the change mask (publish then compares every field)
      v[nb + DMASK] = v[nb + DMASK]! | m;
      if (m < 0 && wide) ents[r]!.dirtyAll = true;
      if (v[nb + DIRTY] === 0) {
        v[nb + DIRTY] = 1;
        this.dirty[this.dirtyN++] = ents[r]!;
      }
    }
    this.changedN = nc;
    if (nrun > 0) this.publishRun(tbl, t, runE, runM, nrun);
  }

  /**
   * Room for `words` words in the encoding arena: the word they start at in
   * `this.arena`, which is the next arena (see `nextArena`) when the current
   * one is too full (or one of their own size, past ARENA_WORDS).
   */
  private arenaRoom(words: number): number {
    if (this.arenaPos + words <= this.arena.length) return this.arenaPos;
    if (words > ARENA_WORDS) this.arena = new Uint32Array(words);
    else {
      this.arena = this.nextArena;
      this.nextArena = new Uint32Array(ARENA_WORDS);
    }
    this.arenaPos = 0;
    return 0;
  }

  /**
   * Encode the update of the entity at row `nb` of `tbl` just published (fields
   * `m`, their old values from ring slot `at` of the history on) straight into
   * the encoding arena, room for the type's longest update (`encWords` > 0)
   * made first; `encA` / `encOff` say where. Fixed-width fields only:
   * `writeFixedMasked`, without a BitOut. Returns the bits written.
   */
  private encodeUsual(tbl: Table, m: number, at: number, nb: number, pub: readonly unknown[]): number {
    const h = this.hist;
    const nv = tbl.v;
    const nvAt = nb + tbl.nn;
    const off = this.arenaRoom(tbl.encWords);
    let a = this.arena;
    const p = planOf(tbl.def);
    let bits: number;
    if ((m & p.other) === 0) bits = writeFixedMasked(a, off << 5, p, m, h.nvals, at, h.vcap - 1, tbl.col, nv, nvAt) - (off << 5);
    else {
      const s = this.arenaOut;
      s.words = a;
      s.pos = off << 5;
      writeMaskedSplit(s, tbl.def, m, h.vals, h.nvals, at, h.vcap - 1, tbl.col, nv, nvAt, pub);
      bits = s.pos - (off << 5);
      // (never grown past the bound; if it were, the grown copy holds everything and becomes the arena)
      if (s.words !== a) this.arena = a = s.words as Uint32Array<ArrayBuffer>;
    }
    this.arenaPos = off + ((bits + 31) >>> 5);
    this.encA = a;
    this.encOff = off << 5;
    return bits;
  }

  /**
   * `publish` of `n` entities of `tbl` at once (`es[i]`, the fields it may
   * have changed `ms[i]`): each spawned, not despawning, its owner unchanged,
   * its candidate fields of fixed-width codings among the first 31 (a type
   * with `fastPub`): the column scan's rows (columns are all of such kinds) and
   * tick()'s dirty entities of that kind. The same undo rows, published
   * values, cached updates (`publishFixed` / `publishWide`: published and
   * encoded in one pass) and usual-packet records (see `segA`) as `publish`
   * and `buildNext` would make, with the history's rings and the arena held in
   * locals for the whole run; room for the run made first. Each record goes
   * into the arena whole, its update where the encoding cache finds it: the
   * usual packet's body is the run's bits as they are. Empties `es`
   * (0 .. n - 1) after.
   */
  private publishRun(tbl: Table, t: number, es: (Ent | undefined)[], ms: Int32Array, n: number): void {
    const nv = tbl.v;
    const nn = tbl.nn;
    const col = tbl.col;
    const p = tbl.plan;
    const wide = p.wide;
    const pn = p.n;
    // a record's words at most: its id gap and op (64 bits), its update (encWords), from any bit of a word
    const ew = tbl.encWords + 3;
    // (runs short enough that the arena's room for their longest records stays well within one arena)
    const chunk = Math.max(1, Math.floor(ARENA_WORDS / 4 / ew));
    const h = this.hist;
    const l = this.streamRecs;
    for (let i0 = 0; i0 < n; ) {
      const i1 = Math.min(n, i0 + chunk);
      const k = i1 - i0;
      h.reserve(k, k * (1 + p.n));
      const from = this.arenaRoom(k * ew) << 5;
      const arena = this.arena;
      // the arena's write head: `sn` bits in `sacc`, to go into word `sq` (BitOut's bits, without its calls)
      let sq = from >>> 5;
      let sn = 0;
      let sacc = 0;
      let ok = this.streamOk;
      if (ok) recCapacity(l, l.n + k);
      // (this run's piece of the usual packet body starts at `from`; its records' start bits are in the body, after
      // the pieces before it)
      const gOff = this.streamBits - from;
      let prev = this.streamPrev;
      let rn = l.n;
      const rid = l.id;
      const rser = l.serial;
      const rg = l.g;
      const rm = h.cap - 1;
      const htick = h.tick;
      const hprevTick = h.prevTick;
      const hprev = h.prev;
      const hmask = h.mask;
      const hvstart = h.vstart;
      const vals = h.vals;
      const nvals = h.nvals;
      const vm = h.vcap - 1;
      let tail = h.tail;
      let vtail = h.vtail;
      for (let i = i0; i < i1; i++) {
        const e = es[i]!;
        const nb = e.nb;
        let d = ms[i]!;
        let m = 0;
        while (d !== 0) {
          const f = 31 - Math.clz32(d & -d);
          d &= d - 1;
          const c = col[f]!;
          if (nv[nb + nn + c] !== nv[nb + c]) m |= 1 << f;
        }
        // (values set back to what was published: no new version)
        if (m === 0) continue;
        // the undo row, its owner, then the old values (publishFixed)
        const s = tail++;
        const ri = s & rm;
        htick[ri] = t;
        const pt = e.pubTick;
        hprevTick[ri] = pt;
        hprev[ri] = e.undo;
        hmask[ri] = m;
        hvstart[ri] = vtail;
        e.undo = s;
        vals[vtail++ & vm] = e.pubOwner;
        e.pubTick = t;
        e.prevPub = pt;
        if (ok) {
          // the record of the usual packet, as putUsual writes it (see putRecord): the id gap (Elias gamma, as
          // writeGamma) and op 0 (an update) in one or two pieces, then the update itself, which the cache keeps
          const id = e.id;
          if (id <= prev) ok = false;
          else {
            rid[rn] = id;
            rser[rn] = e.serial;
            rg[rn++] = (sq << 5) + sn + gOff;
            const gap = id - prev;
            const L = 32 - Math.clz32(gap);
            let qx: number;
            let qn: number;
            let qx2 = 0;
            let qn2 = 0;
            if (L <= 16) {
              qx = (1 << (L - 1)) | ((gap & ((1 << (L - 1)) - 1)) << L);
              qn = 2 * L;
            } else {
              qx = 1 << (L - 1);
              qn = L;
              qx2 = gap & ((1 << (L - 1)) - 1);
              qn2 = L;
            }
            for (;;) {
              sacc |= qx << sn;
              const end = sn + qn;
              if (end >= 32) {
                arena[sq++] = sacc;
                sacc = sn === 0 ? 0 : qx >>> (32 - sn);
                sn = end - 32;
              } else sn = end;
              if (qn2 === 0) break;
              qx = qx2;
              qn = qn2;
              qn2 = 0;
            }
            prev = id;
          }
        }
        // the update: its mask, then its fields (publishWide / publishFixed store the last word they write)
        const body = (sq << 5) + sn;
        sacc |= m << sn;
        const mend = sn + pn;
        if (mend >= 32) {
          arena[sq++] = sacc;
          sacc = sn === 0 ? 0 : m >>> (32 - sn);
          sn = mend - 32;
        } else sn = mend;
        const end =
          (m & ~wide) === 0
            ? publishWide(arena, sq, sacc, sn, m, nvals, vtail, vm, col, nv, nb, nn)
            : publishFixed(arena, sq, sacc, sn, p, m, nvals, vtail, vm, col, nv, nb, nn);
        sq = end >>> 5;
        sn = end & 31;
        sacc = sn === 0 ? 0 : arena[sq]! & ((1 << sn) - 1);
        vtail += popcount32(m);
        setUsual(e, t, pt, arena, body, end - body);
      }
      h.tail = tail;
      h.vtail = vtail;
      const bp = (sq << 5) + sn;
      this.arenaPos = (bp + 31) >>> 5;
      if (ok && bp > from) {
        const j = this.segN++;
        if (j === this.segFrom.length) {
          this.segFrom = growI32(this.segFrom);
          this.segTo = growI32(this.segTo);
        }
        this.segA[j] = arena;
        this.segFrom[j] = from;
        this.segTo[j] = bp;
        this.streamBits += bp - from;
      }
      l.n = rn;
      this.streamPrev = prev;
      this.streamOk = ok;
      i0 = i1;
    }
    es.fill(undefined, 0, n);
  }

  /**
   * One numeric field's `set` through a handle (validated; EncodeError on a bad value, nothing changed then), on the
   * entity's row `nb` of `tbl` alone: its value, change mask and dirty flag (the entity object is not read).
   */
  private handleSetNum(tbl: Table, nb: number, serial: number, e: Ent, fi: FieldInfo, c: number, v: unknown): void {
    const a = tbl.v;
    if (a[nb + OWNER] !== serial) throw new EncodeError(`entity ${e.id}`, 'no such live entity');
    const r = fi.kind === 'f32' && typeof v === 'number' ? this.fb.f32Bits(v) : (toRaw(fi.f, v, `${e.def.name}.${fi.name}`, this.fb) as number);
    if (tbl.cols !== null) {
      const cl = tbl.colBy[fi.index];
      if (cl !== undefined) {
        // a column field: the column is its working value (the change scan at the next tick takes it)
        cl.raw[(nb - ROW_META) / tbl.stride] = r;
        return;
      }
    }
    if (a[nb + c] === r) return;
    a[nb + c] = r;
    const k = fi.index;
    if (k < 32) a[nb + DMASK] = a[nb + DMASK]! | (1 << k);
    else e.dirtyAll = true;
    if (a[nb + DIRTY] === 0) {
      a[nb + DIRTY] = 1;
      this.dirty[this.dirtyN++] = e;
    }
  }

  /** One non-numeric field's `set` (validated; EncodeError on a bad value, nothing changed then). */
  private handleSet(e: Ent, fi: FieldInfo, v: unknown): void {
    if (e.despawnPending) throw new EncodeError(`entity ${e.id}`, 'no such live entity');
    const k = fi.index;
    const r = toRaw(fi.f, v, `${e.def.name}.${fi.name}`, this.fb);
    const old = e.work[k];
    if (old === r || rawEq(fi.f, old, r)) return;
    e.work[k] = r;
    if (k < 32) e.tbl.v[e.nb + DMASK] = e.tbl.v[e.nb + DMASK]! | (1 << k);
    else e.dirtyAll = true;
    this.markDirty(e);
  }

  /** Current values of a live entity. */
  get(id: number): { type: string; values: Record<string, unknown> } | undefined {
    const e = this.ents.get(id);
    return e && { type: e.def.name, values: valuesOf(e.def, this.rawOf(e, 0, e.work, []), this.fb) };
  }

  /** Give an entity to an owner tag (or none): its owner-only fields go to clients with that tag. */
  setOwner(id: number, owner: OwnerTag | undefined): void {
    const e = this.live(id);
    if (e.owner === owner) return;
    e.owner = owner;
    this.markDirty(e);
  }

  despawn(id: number): void {
    const e = this.live(id);
    this.ents.delete(id);
    if (id < BY_ID) this.byId[id] = undefined;
    e.despawnPending = true;
    // (handles of it fail from now on; the row itself is freed when the despawn is published)
    e.tbl.v[e.nb + OWNER] = 0;
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
      const e = new Ent(id, this.defs[type]!, type, src.raw.slice(), undefined, this.tables[type]!);
      this.nextId = Math.max(this.nextId, id + 1);
      this.addEnt(e);
      this.markDirty(e);
    }
    for (const id of result.changed.keys()) {
      const src = client.entities.get(id);
      const e = this.ents.get(id);
      if (src === undefined || e === undefined) continue;
      const v = e.tbl.v;
      for (let i = 0; i < src.raw.length; i++) {
        const c = e.col[i]!;
        if (c >= 0) v[e.nb + c] = src.raw[i] as number;
        else e.work[i] = src.raw[i];
      }
      e.tbl.placed(e.nb);
      e.dirtyAll = true;
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
    const buf = this.changedBuf;
    const floor = t - this.window;
    this.changedN = 0;
    this.streamOk = true;
    this.streamRecs.n = 0;
    this.streamPrev = 0;
    this.segN = 0;
    this.streamBits = 0;
    for (let i = 0; i < this.colTables.length; i++) this.scanColumns(this.colTables[i]!, t);
    let nc = this.changedN;
    const dirty = this.dirty;
    const nd = this.dirtyN;
    const runE = this.runE;
    if (this.runM.length < nd) this.runM = new Int32Array(Math.max(nd, 2 * this.runM.length));
    const runM = this.runM;
    let nrun = 0;
    let runTbl: Table | null = null;
    // one load from each changed entity's first two cache lines first, all independent (their misses overlap)
    let sink = 0;
    for (let i = 0; i < nd; i++) {
      const e = dirty[i]!;
      // (and the fields publish reads and writes on the lines after: see Ent)
      sink += e.spawnTick + e.c1From + e.despawnTick + e.mark;
    }
    this.sink = sink;
    for (let i = 0; i < nd; i++) {
      const e = dirty[i]!;
      dirty[i] = undefined;
      if (e.despawnPending) {
        // nothing reads a despawned entity's values: its row goes back to the table
        if (e.nb >= 0) {
          e.tbl.release(e.nb);
          e.nb = -1;
        }
        if (e.spawnTick >= 0) {
          e.despawnTick = t;
          this.lastDespawn = t;
          buf[nc++] = e;
          this.streamOk = false;
        }
        continue;
      }
      const tbl = e.tbl;
      const v = tbl.v;
      const nb = e.nb;
      v[nb + DIRTY] = 0;
      if (e.spawnTick >= 0 && tbl.fastPub && !e.dirtyAll && e.owner === e.pubOwner) {
        // only fixed-width numeric fields set (a handle's or set()'s moves): published, encoded and written into the
        // tick's stream in one pass, as a column change is (see publishRun)
        const m = v[nb + DMASK]! | 0;
        if ((m & tbl.plan.other) === 0) {
          v[nb + DMASK] = 0;
          // (a run is of one table)
          if (tbl !== runTbl) {
            if (nrun > 0) this.publishRun(runTbl!, t, runE, runM, nrun);
            nrun = 0;
            runTbl = tbl;
          }
          runE[nrun] = e;
          runM[nrun++] = m;
          buf[nc++] = e;
          continue;
        }
      }
      this.streamOk = false;
      if (e.spawnTick < 0) {
        e.spawnTick = t;
        e.pub = e.work.slice();
        v.copyWithin(nb + e.nn, nb, nb + e.nn);
        e.pubOwner = e.owner;
        e.pubTick = t;
        v[nb + DMASK] = 0;
        e.dirtyAll = false;
      } else this.publish(e, t);
      buf[nc++] = e;
    }
    if (nrun > 0) this.publishRun(runTbl!, t, runE, runM, nrun);
    this.dirtyN = 0;
    // (one allocation of the exact size per tick)
    const changed = buf.slice(0, nc);
    for (let i = 0; i < nc; i++) buf[i] = undefined as unknown as Ent;
    // each tick's list in id order, so that the lists of several ticks merge without a sort (see mergedLogs)
    for (let i = 1; i < changed.length; i++) {
      if (changed[i]!.id < changed[i - 1]!.id) {
        changed.sort(byId);
        break;
      }
    }
    this.log.set(t, changed);
    // ticks leave the window in order (several at once after a jump: a relay's tick(to))
    const dropped = this.droppedLists;
    for (const [k, l] of this.log) {
      if (k > floor) break;
      this.log.delete(k);
      this.logIds.delete(k);
      dropped.push(l);
    }
    // the versions published at or before the history floor are now the oldest any baseline needs: the undo rows
    // that lead back past them go
    const hfloor = (this.kept = Math.max(this.kept, this.relaying ? floor : Math.min(t, this.oldestBaseline())));
    this.hist.dropThrough(this.historyFloor(hfloor));
    if (this.hist.needsRebase) this.hist.rebase(this.queryable());
    if (this.profiles.size > 1) {
      const all: Profile[] = [];
      const some: Profile[] = [];
      for (const p of this.profiles) {
        if (p.interest !== undefined) (p.refresh || p.everyTick ? all : some).push(p);
        if (p.acc.size > 0) for (const l of dropped) for (const e of l) if (e.despawnTick >= 0 && e.despawnTick <= t) p.acc.delete(e);
      }
      if (all.length > 0) this.updateInterest(all, t, changed, true);
      if (some.length > 0) this.updateInterest(some, t, changed, false);
    } else {
      const p = this.publicProfile;
      if (p.acc.size > 0) for (const l of dropped) for (const e of l) if (e.despawnTick >= 0 && e.despawnTick <= t) p.acc.delete(e);
    }
    dropped.length = 0;
    return t;
  }

  /** Every entity a version query can ask about, once each: the live ones and those in the window's tick lists. */
  private queryable(): Ent[] {
    const mark = ++this.markSeq;
    const out: Ent[] = [];
    addMarked(out, 0, this.ents.values(), mark);
    for (const l of this.log.values()) addMarked(out, out.length, l, mark);
    return out;
  }

  /**
   * Publish an entity's working values at tick `t`: the fields that differ
   * from the published ones are copied in place, and what they replaced goes
   * into an undo row. Nothing differs (values set back, or set to what they
   * were): no new version, as if the entity had not changed.
   */
  private publish(e: Ent, t: number): void {
    const work = e.work;
    const pub = e.pub;
    // (the type's layout from the table, on the entity's first cache line, not from `def` on its second)
    const tbl = e.tbl;
    const def = tbl.def;
    const nv = tbl.v;
    const nb = e.nb;
    const nn = tbl.nn;
    const col = tbl.col;
    const list = def.list;
    const n = list.length;
    let m = 0;
    let any = false;
    if (n <= 32 && !e.dirtyAll) {
      let d = nv[nb + DMASK]! | 0;
      while (d !== 0) {
        const i = 31 - Math.clz32(d & -d);
        d &= d - 1;
        const c = col[i]!;
        if (c >= 0) {
          if (nv[nb + nn + c] !== nv[nb + c]) m |= 1 << i;
          continue;
        }
        const a = pub[i];
        const b = work[i];
        if (a !== b && (typeof a !== 'object' || !rawEq(list[i]!.f, a, b))) m |= 1 << i;
      }
      any = m !== 0;
    } else {
      for (let i = 0; i < n; i++) {
        const c = col[i]!;
        let diff: boolean;
        if (c >= 0) diff = nv[nb + nn + c] !== nv[nb + c];
        else {
          const a = pub[i];
          const b = work[i];
          diff = a !== b && (typeof a !== 'object' || !rawEq(list[i]!.f, a, b));
        }
        if (diff) {
          if (i < 32) m |= 1 << i;
          any = true;
        }
      }
      if (n > 32) m = -1;
    }
    nv[nb + DMASK] = 0;
    e.dirtyAll = false;
    if (!any && e.owner === e.pubOwner) return;
    const h = this.hist;
    h.row(e, t, m);
    h.put(e.pubOwner);
    if (m === -1 && n > 32) for (let i = 0; i < n; i++) publishField(e, i, h, col[i]!, nv, nb, nn);
    else {
      let d = m;
      while (d !== 0) {
        const i = 31 - Math.clz32(d & -d);
        d &= d - 1;
        publishField(e, i, h, col[i]!, nv, nb, nn);
      }
    }
    const from = e.pubTick;
    e.pubOwner = e.owner;
    e.pubTick = t;
    e.prevPub = from;
    if (m !== 0 && n <= 32 && !def.hasOwnerFields) {
      // the update from the version before, encoded now while its values are at hand: what a client that has
      // that version gets (every client, when all acknowledged the last tick), found in the cache by encode()
      const i = e.undo & (h.cap - 1);
      const at = h.vstart[i]! + 1;
      let bits: number;
      if (tbl.encWords > 0) bits = this.encodeUsual(tbl, m, at, nb, pub);
      else {
        const s = this.scratch;
        s.reset();
        writeMaskedSplit(s, def, m, h.vals, h.nvals, at, h.vcap - 1, col, nv, nb + nn, pub);
        bits = this.stash(s);
      }
      setUsual(e, t, from, this.encA, this.encOff, bits);
    }
  }

  /**
   * The tick of the version of `e` that was current at tick `at` (-1: none,
   * not spawned yet). `at` must not be below `kept`.
   */
  private versionAt(e: Ent, at: number): number {
    let v = e.pubTick;
    if (v <= at) return v;
    // (the version before: its row is newer than `kept`, so it is still there)
    if (e.prevPub <= at) return e.prevPub;
    let r = e.undo;
    const h = this.hist;
    const m = h.cap - 1;
    while (v > at) {
      if (r < h.head) return -1;
      const i = r & m;
      v = h.prevTick[i]!;
      r = h.prev[i]!;
    }
    return v;
  }

  /** `e`'s raw values in `out`: the numeric ones from its row at `at` (0: working, `nn`: published), the others from `rest`. */
  private rawOf(e: Ent, at: number, rest: readonly unknown[], out: unknown[]): unknown[] {
    const col = e.col;
    const nv = e.tbl.v;
    at += e.nb;
    const n = col.length;
    for (let i = 0; i < n; i++) {
      const c = col[i]!;
      out[i] = c >= 0 ? nv[at + c] : rest[i];
    }
    // (working values of column fields are their columns')
    if (at === e.nb && e.tbl.cols !== null) for (const cl of e.tbl.cols) out[cl.k] = cl.raw[(e.nb - ROW_META) / e.tbl.stride];
    return out;
  }

  /**
   * The raw values of version `v` of `e` (a published version not below
   * `kept`) in `out`. Sets `atOwner` to that version's owner.
   */
  private valuesAt(e: Ent, v: number, out: unknown[]): readonly unknown[] {
    this.atOwner = e.pubOwner;
    this.rawOf(e, e.nn, e.pub, out);
    if (v === e.pubTick) return out;
    const n = e.col.length;
    const col = e.col;
    const h = this.hist;
    const nvals = h.nvals;
    let r = e.undo;
    // newest row first: each older row's values overwrite newer ones, leaving those of version v
    const rm = h.cap - 1;
    const vals = h.vals;
    const vm = h.vcap - 1;
    while (r >= h.head) {
      const i = r & rm;
      if (h.tick[i]! <= v) break;
      let at = h.vstart[i]!;
      this.atOwner = vals[at++ & vm] as OwnerTag | undefined;
      const m = h.mask[i]!;
      if (m === -1 && n > 32)
        for (let k = 0; k < n; k++) {
          const j = at++ & vm;
          out[k] = col[k]! >= 0 ? nvals[j] : vals[j];
        }
      else {
        let d = m;
        while (d !== 0) {
          const k = 31 - Math.clz32(d & -d);
          d &= d - 1;
          const j = at++ & vm;
          out[k] = col[k]! >= 0 ? nvals[j] : vals[j];
        }
      }
      r = h.prev[i]!;
    }
    return out;
  }

  /**
   * How far back the undo rows must reach: to `kept`, and to the oldest
   * version a packet left out for a client whose node can still be a baseline
   * (it holds that version for the entity).
   */
  private historyFloor(kept: number): number {
    let floor = kept;
    if (!this.anyOver) return floor;
    for (const c of this.clients.values()) {
      for (const b of c.live(this.t)) if (b.node.minHeld < floor) floor = b.node.minHeld;
      if (c.last !== null && c.last.minHeld < floor) floor = c.last.minHeld;
    }
    return floor;
  }

  /** The oldest tick any client can still have as its baseline (see `kept`). */
  private oldestBaseline(): number {
    let min = Infinity;
    const lo = this.t - this.window + 1;
    const reliable = this.delivery === 'reliable';
    for (const c of this.clients.values()) {
      let b: number;
      if (reliable) b = c.last === null ? Infinity : c.last.tick;
      else if (c.acked >= 0) b = c.acked;
      else {
        // nothing acknowledged yet: any tick it was sent may come back
        b = c.oldest(this.t);
      }
      // a baseline older than the window is never used (such a client gets a full state): a client that stopped
      // acknowledging (or was not sent anything for a while) must not hold the history back
      if (b < lo) b = lo;
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
    this.visEpoch++;
    const np = ps.length;
    const toggled: Ent[][] = ps.map(() => []);
    // the entities to check and their values (undefined: gone), then view by view: each view's hook called for all of
    // them in a row
    const es = this.checkEnts;
    const vals = this.checkVals;
    const ids = this.checkIds;
    let ne = 0;
    const put = (e: Ent): void => {
      es[ne] = e;
      ids[ne] = e.id;
      vals[ne++] = e.despawnTick < 0 && e.spawnTick >= 0 ? this.valuesOf(e) : undefined;
    };
    if (all) {
      // every entity (a viewpoint may have moved), and the ones that just left the world
      for (const e of this.ents.values()) put(e);
      for (const e of changed) if (e.despawnTick >= 0) put(e);
    } else for (const e of changed) put(e);
    // their visibility bits, side by side (`words` per entity: read once per view, not through each entity's own array)
    const words = (this.nextSlot + 31) >>> 5;
    if (this.checkBits.length < ne * words) this.checkBits = new Int32Array(Math.max(ne * words, 2 * this.checkBits.length));
    const bits = this.checkBits;
    for (let i = 0; i < ne; i++) {
      const v = es[i]!.vis;
      for (let q = 0; q < words; q++) bits[i * words + q] = v !== null && q < v.length ? v[q]! : 0;
    }
    for (let k = 0; k < np; k++) {
      const p = ps[k]!;
      const f = p.interest!;
      const w = p.slot >>> 5;
      const bit = 1 << (p.slot & 31);
      const tog = toggled[k]!;
      for (let i = 0; i < ne; i++) {
        const values = vals[i];
        const vis = values !== undefined && !!f(ids[i]!, values);
        const was = (bits[i * words + w]! & bit) !== 0;
        if (vis === was) continue;
        bits[i * words + w] = bits[i * words + w]! ^ bit;
        const e = es[i]!;
        let v = e.vis;
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
        e.toggledAt = t;
        tog.push(e);
      }
    }
    es.fill(undefined, 0, ne);
    vals.fill(undefined, 0, ne);
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

  /** The user-facing published values of `e` (for interest hooks), made once per version. */
  private valuesOf(e: Ent): Record<string, unknown> {
    if (e.valsTick !== e.pubTick || e.vals === undefined) {
      e.vals = valuesOf(e.def, this.rawOf(e, e.nn, e.pub, this.valRaw), this.fb);
      e.valsTick = e.pubTick;
    }
    return e.vals;
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
    const c = new ClientState(profile, this.sentStore, this.sentStore.add());
    this.clients.set(key, c);
    if (isSmallKey(key)) {
      while (this.smallKeys.length <= key) this.smallKeys.push(undefined);
      this.smallKeys[key] = c;
    }
  }

  removeClient(key: ClientKey): void {
    const c = this.clients.get(key);
    if (c === undefined) return;
    this.clients.delete(key);
    if (isSmallKey(key)) this.smallKeys[key] = undefined;
    this.sentStore.remove(c.ix);
    if (c.profile !== this.publicProfile) {
      this.profiles.delete(c.profile);
      const slot = c.profile.slot;
      if (slot >= 0) {
        // clear the slot's bits before another profile takes it
        const w = slot >>> 5;
        const bit = ~(1 << (slot & 31));
        for (const e of c.profile.visible) if (e.vis !== null && w < e.vis.length) e.vis[w]! &= bit;
        this.visEpoch++;
        this.freeSlots.push(slot);
      }
    }
  }

  /** Re-evaluate a client's interest in every entity at the next `tick()` (for `interestEvery: 'change'` clients whose viewpoint moved). */
  refreshInterest(key: ClientKey): void {
    this.client(key).profile.refresh = true;
  }

  private client(key: ClientKey): ClientState {
    if (isSmallKey(key)) {
      const s = this.smallKeys[key];
      if (s !== undefined) return s;
    }
    const c = this.clients.get(key);
    if (c === undefined) throw new EncodeError(`client ${String(key)}`, 'no such client');
    return c;
  }

  /** What the server keeps for a client (for tests and monitoring). */
  clientStats(key: ClientKey): { ackedTick: number; nodes: number; heldOverrides: number } {
    const c = this.client(key);
    let over = 0;
    const live = c.live(this.t);
    for (const b of live) over += b.node.over?.size ?? 0;
    return { ackedTick: c.acked, nodes: live.length, heldOverrides: over };
  }

  /**
   * Apply a client's acknowledgement (the bytes of `ReplicationClient.ack()`).
   * Throws DecodeError on bad bytes or a schema mismatch; acks of unknown ticks are ignored.
   */
  receive(key: ClientKey, bytes: Uint8Array): void {
    const c = this.client(key);
    // the usual ack (magic, hash, session, 1..3-byte tick) without a reader object
    const n = bytes.length;
    if (
      n >= 10 &&
      n <= 12 &&
      bytes[0] === ACK_MAGIC &&
      (bytes[1]! | (bytes[2]! << 8) | (bytes[3]! << 16) | (bytes[4]! << 24)) >>> 0 === this.hash &&
      (bytes[5]! | (bytes[6]! << 8) | (bytes[7]! << 16) | (bytes[8]! << 24)) >>> 0 === this.session
    ) {
      let tick = -1;
      const b = bytes[9]!;
      if (n === 10 && b < 0x80) tick = b;
      else if (n === 11 && b >= 0x80 && bytes[10]! < 0x80 && bytes[10] !== 0) tick = (b & 0x7f) | (bytes[10]! << 7);
      else if (n === 12 && b >= 0x80 && bytes[10]! >= 0x80 && bytes[11]! < 0x80 && bytes[11] !== 0)
        tick = (b & 0x7f) | ((bytes[10]! & 0x7f) << 7) | (bytes[11]! << 14);
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
    const session = r.u32le('session');
    const tick = r.vu32('tick');
    r.expectEnd('end');
    // (a client that follows another server, or none yet: nothing it applied is ours, so no baseline)
    if (session === this.session) this.ack(c, tick);
  }

  private ack(c: ClientState, tick: number): void {
    if (tick > c.acked && c.get(tick, this.t) !== undefined) {
      c.acked = tick;
      // packets older than the ack can no longer be a baseline (acks only move forward)
      c.floor = tick;
    }
  }

  /** This tick's packet for a client (at most `mtu` bytes). The same bytes if asked twice in a tick. */
  packetFor(key: ClientKey): Uint8Array {
    const c = this.client(key);
    const t = this.t;
    const lb = c.lastBuilt;
    if (lb !== null && lb.node.tick === t) return lb.packet;
    if (t === 0) throw new EncodeError('tick', 'call tick() before packetFor()');
    // the usual case in acked delivery: the client acknowledged its packet of the tick before, which left nothing out,
    // and another client with the same view has had this tick's packet against that tick made: the same bytes, without
    // the lookups below (the baseline is that packet's node, `last`, within the window and the history: see below)
    const p = c.profile;
    if (p.usualTick === t && c.acked === t - 1 && lb !== null && lb.node.tick === t - 1 && this.delivery === 'acked' && this.window > 1) {
      const b = lb.node;
      if (b.over === null && b.tick >= this.kept) {
        const built = p.usualBuilt!;
        c.set(t, built);
        c.lastBuilt = built;
        return built.packet;
      }
    }
    let base: Node | null;
    if (this.delivery === 'reliable') base = c.last;
    else base = c.acked >= 0 ? (c.get(c.acked, t)?.node ?? null) : null;
    if (base !== null && (t - base.tick >= this.window || base.tick < this.kept)) base = null;
    // a client that missed ticks: the usual packets of the ticks since its baseline, when they can serve it
    const built =
      (base !== null && base.tick < t - 1 && this.bundles && this.delivery === 'acked' && this.bundleFor(c, base, t)) || this.build(c.profile, base, t);
    c.set(t, built);
    c.lastBuilt = built;
    if (base !== null && base.tick === t - 1 && base.over === null) {
      p.usualTick = t;
      p.usualBuilt = built;
    }
    if (this.delivery === 'reliable') {
      c.acked = t;
      c.floor = t;
    }
    return built.packet;
  }

  /**
   * A world delta for relays: the public view (no interest, no owner fields)
   * from `fromTick` (which must be within the window and before the current
   * tick; omit for a full state / keyframe) to the current tick, with no size limit.
   */
  worldPacket(fromTick?: number): Uint8Array {
    const t = this.t;
    if (t === 0) throw new EncodeError('tick', 'call tick() before worldPacket()');
    let base: Node | null = null;
    if (fromTick !== undefined) {
      // (not the current tick itself: on the wire a baseline 0 ticks back means a full state, and a client would
      // take that empty packet for an empty world)
      if (!Number.isInteger(fromTick) || fromTick < t - this.window + 1 || fromTick >= t)
        throw new EncodeError('fromTick', `must be within the window and before the current tick (${t - this.window + 1}..${t - 1})`);
      // (a first delta from a tick whose history is already cut: a full state instead)
      if (this.relaying || fromTick >= this.kept) base = { tick: fromTick, over: null, minHeld: Infinity };
    }
    this.relaying = true;
    return this.build(this.publicProfile, base, t, Infinity).packet;
  }

  // --- packets ------------------------------------------------------------------

  private visible(p: Profile, e: Ent, t: number): boolean {
    if (p.interest === undefined) return e.spawnTick >= 0 && e.spawnTick <= t && (e.despawnTick < 0 || t < e.despawnTick);
    // no profile toggled it after `t`: what the profile's bit says now (no lookup in the toggles)
    if (e.toggledAt <= t) {
      const v = e.vis;
      const w = p.slot >>> 5;
      return v !== null && w < v.length && (v[w]! & (1 << (p.slot & 31))) !== 0;
    }
    const arr = p.toggles.get(e);
    if (arr === undefined) return false;
    let n = 0;
    for (let i = 0; i < arr.length && arr[i]! <= t; i++) n++;
    return (n & 1) === 1;
  }

  /** The version of `e` the client at `node` holds (by tick; -1: none). */
  private held(p: Profile, e: Ent, node: Node): number {
    if (node.over !== null) {
      const o = node.over.get(e);
      if (o !== undefined) return o;
    }
    return this.visible(p, e, node.tick) ? this.versionAt(e, node.tick) : -1;
  }

  /** The entities whose record against `base` may be non-empty: the first `candN` of the returned array. */
  private candidates(p: Profile, base: Node | null, t: number): Ent[] {
    const mark = ++this.markSeq;
    const out = this.cands;
    let n = 0;
    if (base === null) {
      for (const e of p.interest === undefined ? this.ents.values() : p.visible) out[n++] = e;
      this.candN = n;
      return out;
    }
    for (let k = base.tick + 1; k <= t; k++) {
      const l = this.log.get(k);
      if (l) n = p.interest === undefined ? addMarked(out, n, l, mark) : this.addSeen(p, out, n, l, mark);
      if (p.interest !== undefined) {
        const pl = p.log.get(k);
        if (pl) n = addMarked(out, n, pl, mark);
      }
    }
    if (base.over !== null) n = addMarked(out, n, base.over.keys(), mark);
    this.candN = n;
    return out;
  }

  /** The ids (`logIdsOf`, kept while the list is) and serials of `log`, tick `t`'s list, in `logId` / `logSer`. */
  private logKeys(log: readonly Ent[], t: number): void {
    this.logId = this.logIdsOf(t, log);
    if (this.logSer.length < log.length) this.logSer = new Int32Array(Math.max(log.length, this.logSer.length * 2));
    for (let i = 0; i < log.length; i++) this.logSer[i] = log[i]!.serial;
    this.logKeysTick = t;
  }

  /**
   * `addMarked` for an interest profile: only the changed entities it sees now.
   * One it saw at the baseline and no longer sees toggled since, and is among
   * the candidates from the profile's own toggle log; the others are invisible
   * to it at the baseline and now, and have no record.
   */
  private addSeen(p: Profile, out: Ent[], n: number, from: readonly Ent[], mark: number): number {
    // the second profile to ask for this log (the bits unchanged) has the log split by slot for it and the rest: one
    // pass over the log's bits instead of one per profile (see seenStart)
    if (this.seenLog !== from || this.seenEpoch !== this.visEpoch) {
      this.seenLog = from;
      this.seenEpoch = this.visEpoch;
      this.seenReady = false;
    } else {
      if (!this.seenReady) this.splitSeen(from);
      const idx = this.seenIdx;
      const end = this.seenStart[p.slot + 1]!;
      for (let j = this.seenStart[p.slot]!; j < end; j++) {
        const e = from[idx[j]!]!;
        if (e.mark === mark) continue;
        e.mark = mark;
        out[n++] = e;
      }
      return n;
    }
    const w = p.slot >>> 5;
    const bit = 1 << (p.slot & 31);
    for (let i = 0; i < from.length; i++) {
      const e = from[i]!;
      if (e.mark === mark) continue;
      const v = e.vis;
      if (v === null || w >= v.length || (v[w]! & bit) === 0) continue;
      e.mark = mark;
      out[n++] = e;
    }
    return n;
  }
  /** `log`'s entities by the slots whose bit they have (see seenStart): counted, then placed, in log order. */
  private splitSeen(log: readonly Ent[]): void {
    const slots = this.nextSlot;
    if (this.seenStart.length < slots + 1) this.seenStart = new Int32Array(Math.max(slots + 1, 2 * this.seenStart.length));
    const start = this.seenStart;
    start.fill(0, 0, slots + 1);
    const words = (slots + 31) >>> 5;
    let total = 0;
    for (let i = 0; i < log.length; i++) {
      const v = log[i]!.vis;
      if (v === null) continue;
      const nw = Math.min(words, v.length);
      for (let k = 0; k < nw; k++) {
        for (let b = v[k]!; b !== 0; b &= b - 1) {
          start[(k << 5) + 31 - Math.clz32(b & -b) + 1]!++;
          total++;
        }
      }
    }
    for (let s = 0; s < slots; s++) start[s + 1]! += start[s]!;
    if (this.seenIdx.length < total) this.seenIdx = new Int32Array(Math.max(total, 2 * this.seenIdx.length));
    const idx = this.seenIdx;
    // (each slot's next place: its start, moved along; the starts are restored after)
    for (let i = 0; i < log.length; i++) {
      const v = log[i]!.vis;
      if (v === null) continue;
      const nw = Math.min(words, v.length);
      for (let k = 0; k < nw; k++) {
        for (let b = v[k]!; b !== 0; b &= b - 1) idx[start[(k << 5) + 31 - Math.clz32(b & -b)]!++] = i;
      }
    }
    for (let s = slots; s > 0; s--) start[s] = start[s - 1]!;
    start[0] = 0;
    this.seenReady = true;
  }

  /**
   * The entities changed in ticks `from + 1 .. t`, in id order, each once: a
   * merge of the (sorted) tick lists, on their ids (`logIdsOf`), so that no
   * entity is read. An entity met again is among the last ones placed with its
   * id (ties keep the earlier lists' entries first), told apart by identity:
   * two entities of one id (despawned and spawned again) both stay.
   */
  private mergedLogs(from: number, t: number): Ent[] {
    // with no despawn since `from`, each id is one entity: a bit set of the ids gives them in order
    if (this.lastDespawn <= from && testHooks.mergeBits) {
      const r = this.mergedBits(from, t);
      if (r !== null) {
        testHooks.mergedByBits++;
        return r;
      }
    }
    testHooks.mergedByMerge++;
    let out = this.cands;
    let tmp = this.cands2;
    let oid = this.candIds;
    let tid = this.candIds2;
    let na = 0;
    for (let k = from + 1; k <= t; k++) {
      const l = this.log.get(k);
      if (l === undefined || l.length === 0) continue;
      const lid = this.logIdsOf(k, l);
      const nb = l.length;
      if (oid.length < na + nb) {
        const cap = Math.max(na + nb, 2 * oid.length, 256);
        const grown = new Uint32Array(cap);
        grown.set(oid.subarray(0, na));
        oid = grown;
        tid = new Uint32Array(cap);
      }
      if (na === 0) {
        for (let i = 0; i < nb; i++) {
          out[i] = l[i]!;
          oid[i] = lid[i]!;
        }
        na = nb;
        continue;
      }
      let i = 0;
      let j = 0;
      let n = 0;
      while (i < na || j < nb) {
        if (j >= nb || (i < na && oid[i]! <= lid[j]!)) {
          tmp[n] = out[i]!;
          tid[n++] = oid[i++]!;
        } else {
          const e = l[j]!;
          const id = lid[j++]!;
          let q = n - 1;
          while (q >= 0 && tid[q] === id && tmp[q] !== e) q--;
          if (q >= 0 && tid[q] === id) continue;
          tmp[n] = e;
          tid[n++] = id;
        }
      }
      const x = out;
      out = tmp;
      tmp = x;
      const y = oid;
      oid = tid;
      tid = y;
      na = n;
    }
    this.cands = out;
    this.cands2 = tmp;
    this.candIds = oid;
    this.candIds2 = tid;
    this.candN = na;
    return out;
  }

  /**
   * `mergedLogs` when no id has two entities in the lists (no despawn since
   * `from`): each list's ids set in a bit set over their range, with the entity
   * of each id beside it, then read out in order. Null (nothing done) when the
   * ids are too sparse for that (a range past 4 ids per entry).
   */
  private mergedBits(from: number, t: number): Ent[] | null {
    let lo = 0xffffffff;
    let hi = -1;
    let total = 0;
    for (let k = from + 1; k <= t; k++) {
      const l = this.log.get(k);
      if (l === undefined || l.length === 0) continue;
      const lid = this.logIdsOf(k, l);
      if (lid[0]! < lo) lo = lid[0]!;
      if (lid[l.length - 1]! > hi) hi = lid[l.length - 1]!;
      total += l.length;
    }
    if (total === 0) {
      this.candN = 0;
      return this.cands;
    }
    const range = hi - lo + 1;
    if (range > 4 * total + 1024) return null;
    const words = (range + 31) >>> 5;
    if (this.mergeBits.length < words) this.mergeBits = new Int32Array(Math.max(words, 2 * this.mergeBits.length));
    const bits = this.mergeBits;
    const slot = this.mergeSlot;
    while (slot.length < words << 5) slot.push(undefined);
    for (let k = from + 1; k <= t; k++) {
      const l = this.log.get(k);
      if (l === undefined) continue;
      const lid = this.logIdsOf(k, l);
      for (let j = 0; j < l.length; j++) {
        const x = lid[j]! - lo;
        bits[x >>> 5] = bits[x >>> 5]! | (1 << (x & 31));
        slot[x] = l[j]!;
      }
    }
    const out = this.cands;
    let n = 0;
    for (let w = 0; w < words; w++) {
      let b = bits[w]!;
      if (b === 0) continue;
      bits[w] = 0;
      while (b !== 0) {
        const x = (w << 5) + 31 - Math.clz32(b & -b);
        b &= b - 1;
        out[n++] = slot[x]!;
        slot[x] = undefined;
      }
    }
    this.candN = n;
    return out;
  }

  /** The ids of `l`, tick `k`'s list, in its order (made once, kept while the list is in the window). */
  private logIdsOf(k: number, l: readonly Ent[]): Uint32Array {
    let ids = this.logIds.get(k);
    if (ids === undefined) {
      ids = new Uint32Array(l.length);
      for (let i = 0; i < l.length; i++) ids[i] = l[i]!.id;
      this.logIds.set(k, ids);
    }
    return ids;
  }

  /** `raw` as a client without the owner-only fields sees it (owner-only fields at their defaults), in `out`. */
  private publicRaw(def: AnyEntityDef, raw: readonly unknown[], out: unknown[]): readonly unknown[] {
    const list = def.list;
    for (let i = 0; i < list.length; i++) out[i] = list[i]!.ownerOnly ? list[i]!.defaultRaw : raw[i];
    return out;
  }

  /**
   * Encode the body of `e`'s record from version `held` (-1: a creation) to its
   * newest version `target`, for profile `p`; returns its bit count and leaves
   * where it is in `encA` / `encOff`, or returns -1 when nothing differs.
   * Cached on the entity for its newest version, by baseline version.
   */
  private encode(p: Profile, e: Ent, held: number, target: number): number {
    const def = e.def;
    if (e.cTick !== target) {
      e.cTick = target;
      e.c0From = e.c1From = -2;
      e.ccBits = -1;
      e.cMore = undefined;
    }
    const priv = def.hasOwnerFields && p.owner !== undefined;
    const ownV = priv && e.pubOwner === p.owner;
    const s = this.scratch;
    if (held < 0) {
      if (!ownV && e.ccBits >= 0) {
        this.encA = e.ccA;
        this.encOff = e.ccOff;
        return e.ccBits;
      }
      if (ownV) {
        const hit = e.cMore?.get(-4 + 2);
        if (hit !== undefined) {
          this.encA = hit.a;
          this.encOff = hit.off;
          return hit.bits;
        }
      }
      s.reset();
      const full = this.rawOf(e, e.nn, e.pub, this.pubRawN);
      const raw = def.hasOwnerFields && !ownV ? this.publicRaw(def, full, this.pubRawV) : full;
      if (!writeBody(s, def, def.defaults, raw)) {
        // all fields at their defaults: just a mask of zeros
        for (let n = def.list.length; n > 0; n -= 32) s.write(0, Math.min(32, n));
      }
      const bits = this.stash(s);
      if (!ownV) {
        e.ccA = this.encA;
        e.ccOff = this.encOff;
        e.ccBits = bits;
      } else (e.cMore ??= new Map()).set(-4 + 2, { a: this.encA, off: this.encOff, bits });
      return bits;
    }
    // the common case: two (baseline, encoding) slots, then the map; without owner-specific fields they need not
    // the held values
    if (!priv) {
      const hit = this.slotHit(e, held);
      if (hit !== MISS) return hit;
      if (!def.hasOwnerFields && def.list.length <= 32) {
        const more = e.cMore?.get(held * 4);
        if (more !== undefined) {
          this.encA = more.a;
          this.encOff = more.off;
          return more.bits;
        }
        const bits = this.encodeSince(e, held);
        this.cacheEnc(e, held, bits);
        return bits;
      }
    }
    let hraw = this.valuesAt(e, held, this.heldRaw);
    const ownH = priv && this.atOwner === p.owner;
    const k = (ownH ? 1 : 0) | (ownV ? 2 : 0);
    if (priv && k === 0) {
      const hit = this.slotHit(e, held);
      if (hit !== MISS) return hit;
    }
    const key = held * 4 + k;
    if (e.cMore !== undefined) {
      const hit = e.cMore.get(key);
      if (hit !== undefined) {
        this.encA = hit.a;
        this.encOff = hit.off;
        return hit.bits;
      }
    }
    s.reset();
    let vraw: readonly unknown[] = this.rawOf(e, e.nn, e.pub, this.pubRawN);
    if (def.hasOwnerFields) {
      if (!ownH) hraw = this.publicRaw(def, hraw, this.pubRawH);
      if (!ownV) vraw = this.publicRaw(def, vraw, this.pubRawV);
    }
    let bits = -1;
    if (writeBody(s, def, hraw, vraw)) bits = this.stash(s);
    else this.encA = NO_ARENA;
    if (k === 0) this.cacheEnc(e, held, bits);
    else (e.cMore ??= new Map()).set(key, { a: this.encA, off: this.encOff, bits });
    return bits;
  }

  /**
   * The update of `e` (a type of at most 32 fields, none owner-only) from its
   * version `held` to its newest: the fields its undo rows after `held` changed,
   * with their values at `held` from those rows (the oldest row wins), those
   * that still differ written as `writeBody` would. Returns the bits (and
   * `encA` / `encOff`), or -1 when nothing differs.
   */
  private encodeSince(e: Ent, held: number): number {
    const h = this.hist;
    const col = e.col;
    const oldN = this.sinceN;
    const oldO = this.sinceO;
    const nvals = h.nvals;
    const vals = h.vals;
    const rm = h.cap - 1;
    const vm = h.vcap - 1;
    let union = 0;
    let r = e.undo;
    // newest row first: an older row's values overwrite a newer one's, leaving those of version `held`
    while (r >= h.head) {
      const i = r & rm;
      if (h.tick[i]! <= held) break;
      let at = h.vstart[i]! + 1; // (past the owner)
      const m = h.mask[i]!;
      for (let d = m; d !== 0; d &= d - 1) {
        const k = 31 - Math.clz32(d & -d);
        const j = at++ & vm;
        if (col[k]! >= 0) oldN[k] = nvals[j]!;
        else oldO[k] = vals[j];
      }
      union |= m;
      r = h.prev[i]!;
    }
    const nv = e.tbl.v;
    const nn = e.nb + e.nn;
    const pub = e.pub;
    const list = e.def.list;
    let m = 0;
    for (let d = union; d !== 0; d &= d - 1) {
      const k = 31 - Math.clz32(d & -d);
      const c = col[k]!;
      if (c >= 0 ? oldN[k] !== nv[nn + c] : oldO[k] !== pub[k] && (typeof oldO[k] !== 'object' || !rawEq(list[k]!.f, oldO[k], pub[k]))) m |= 1 << k;
    }
    if (m === 0) {
      this.encA = NO_ARENA;
      return -1;
    }
    const s = this.scratch;
    s.reset();
    writeMaskedPairs(s, e.def, m, oldN, oldO, col, nv, nn, pub);
    return this.stash(s);
  }

  /** The encoding from version `held` in the entity's two slots (its bits, and `encA` / `encOff`), or MISS. */
  private slotHit(e: Ent, held: number): number {
    if (e.c0From === held) {
      this.encA = e.c0A;
      this.encOff = e.c0Off;
      return e.c0Bits;
    }
    if (e.c1From === held) {
      this.encA = e.c1A;
      this.encOff = e.c1Off;
      return e.c1Bits;
    }
    return MISS;
  }

  /** Cache the encoding in `encA` / `encOff` (of `bits` bits, -1: none) from version `held`, for clients without owner-specific fields. */
  private cacheEnc(e: Ent, held: number, bits: number): void {
    if (e.c0From === -2) {
      e.c0From = held;
      e.c0A = this.encA;
      e.c0Off = this.encOff;
      e.c0Bits = bits;
    } else if (e.c1From === -2) {
      e.c1From = held;
      e.c1A = this.encA;
      e.c1Off = this.encOff;
      e.c1Bits = bits;
    } else (e.cMore ??= new Map()).set(held * 4, { a: this.encA, off: this.encOff, bits });
  }

  /** Keep the bits written in `s` in the encoding arena; returns the bit count (and `encA` / `encOff`). */
  private stash(s: BitOut): number {
    const n = (s.pos + 31) >>> 5;
    const off = this.arenaRoom(n);
    const a = this.arena;
    const w = s.words;
    for (let i = 0; i < n; i++) a[off + i] = w[i]!;
    this.arenaPos = off + n;
    this.encA = a;
    this.encOff = off << 5;
    return s.pos;
  }

  /** The first packet of profile `p` at tick `t`: last tick's packets and bundles go (its record lists are kept, see build). */
  private startTick(p: Profile, t: number): void {
    if (p.builtTick === t) return;
    emptyMap(p.built);
    emptyMap(p.bundles);
    // the record lists of the tick before are the starting point of this tick's (see below)
    const old = p.prevRecs;
    for (const l of old.values()) this.freeRecLists.push(l);
    emptyMap(old);
    p.prevRecs = p.builtTick === t - 1 ? p.recs : old;
    p.recs = p.builtTick === t - 1 ? old : p.recs;
    emptyMap(p.recs);
    p.builtTick = t;
  }

  private build(p: Profile, base: Node | null, t: number, mtu = this.mtu): Built {
    this.startTick(p, t);
    const key = base === null ? 'full' : base.over === null ? base.tick : base;
    const cached = mtu === this.mtu ? p.built.get(key) : undefined;
    if (cached !== undefined) return cached;
    // a usual packet: made framed as a bundle part, in the profile's part slab (see partBytes)
    const usual = mtu === this.mtu && base !== null && base.tick === t - 1 && key === base.tick && p.interest === undefined && p.owner === undefined;
    this.partTo = usual ? p : null;
    let made: Built;
    try {
      made = this.buildNew(p, base, t, mtu);
    } finally {
      this.partTo = null;
    }
    if (mtu === this.mtu) {
      p.built.set(key, made);
      // with nothing left out: kept as a part of bundles (see bundleFor; made in the part slab, framed)
      if (usual && made.node.over === null && made.packet.buffer === p.partSlab.buffer) {
        const l = p.recs.get(t - 1);
        if (l !== undefined) this.keepPart(p, t, made, l);
      }
    }
    return made;
  }

  /** Keep `built`, the usual packet of `p` at tick `t` (records `l`), as a part of bundles. */
  private keepPart(p: Profile, t: number, built: Built, l: RecList): void {
    const i = t % this.window;
    let u = p.usual[i];
    if (u === undefined)
      p.usual[i] = u = {
        tick: t,
        built,
        ids: new Uint32Array(Math.max(64, l.n)),
        n: 0,
        bits: new Int32Array(0),
        lo: 0,
        nw: 0,
        bitsTick: -1,
      };
    else if (u.ids.length < l.n) u.ids = new Uint32Array(Math.max(l.n, u.ids.length * 2));
    u.tick = t;
    u.built = built;
    u.bitsTick = -1;
    u.ids.set(l.id.subarray(0, l.n));
    u.n = l.n;
  }

  /** Profile `p`'s usual packet of tick `k`, if kept. */
  private partAt(p: Profile, k: number): UsualPart | undefined {
    const u = p.usual[k % this.window];
    return u !== undefined && u.tick === k ? u : undefined;
  }

  /**
   * A bundle for client `c` against `base` (older than the tick before): the
   * usual packets of every tick since, each against the tick before it, which
   * the client applies in order. They were made anyway (for the clients that
   * acknowledged the tick before), so a bundle costs a copy, where one delta
   * from the baseline is encoded anew. Null when one cannot serve: a view with
   * interest, an owner or entities waiting in the priority accumulator; a packet
   * sent after the baseline that left entities out (the client may have applied
   * it, and would then miss them); a part not kept; more than `mtu` bytes; or
   * more than a quarter more records than the entities changed since the
   * baseline (one delta sends each once, a bundle once per tick it changed in).
   */
  private bundleFor(c: ClientState, base: Node, t: number): Built | null {
    const p = c.profile;
    if (base.over !== null || p.interest !== undefined || p.owner !== undefined || p.acc.size > 0) return null;
    for (let k = base.tick + 1; k < t; k++) {
      const s = c.get(k, t);
      if (s !== undefined && s.node.over !== null) return null;
    }
    this.startTick(p, t);
    const hit = p.bundles.get(base.tick);
    if (hit !== undefined) return hit;
    const made = this.makeBundle(p, base.tick, t);
    p.bundles.set(base.tick, made);
    return made;
  }

  private makeBundle(p: Profile, from: number, t: number): Built | null {
    let len = 0;
    let records = 0;
    for (let k = from + 1; k < t; k++) {
      const u = this.partAt(p, k);
      if (u === undefined) return null;
      len += frameBytes(u.built.packet);
      records += u.n;
    }
    // this tick's part: the usual packet, made now if no client asked for it yet, once the bundle looks worth it (its
    // records counted as the tick's changed entities, its size as the largest part before it)
    let cur = this.partAt(p, t);
    if (cur === undefined) {
      if (p.acc.size > 0) return null;
      const log = this.log.get(t) ?? EMPTY_ENTS;
      if (this.logKeysTick !== t) this.logKeys(log, t);
      let most = 0;
      for (let k = from + 1; k < t; k++) most = Math.max(most, this.partAt(p, k)!.built.packet.length);
      const li = this.logIds1;
      if (li.tick !== t || li.ids !== this.logId || li.n !== log.length) {
        li.tick = t;
        li.ids = this.logId;
        li.n = log.length;
        li.bitsTick = -1;
      }
      if (len + 1 + varintBytes(most) + most > this.mtu || records + log.length > 1.25 * this.unionSize(p, from, t, li)) return null;
      this.build(p, this.partAt(p, t - 1)!.built.node, t);
      cur = this.partAt(p, t);
      if (cur === undefined) return null;
    }
    len += frameBytes(cur.built.packet);
    records += cur.n;
    if (len > this.mtu || records > 1.25 * this.unionSize(p, from, t, cur)) return null;
    // the parts are framed where they were made: when they lie one after another in one slab (as they do unless a slab
    // filled up between them), the bundle is a view of them, not a copy
    const first = this.partAt(p, from + 1)!.built.packet;
    let next = first.byteOffset + first.length;
    for (let k = from + 2; k <= t && next >= 0; k++) {
      const pk = this.partAt(p, k)!.built.packet;
      next = pk.buffer === first.buffer && frameAt(pk) === next ? pk.byteOffset + pk.length : -1;
    }
    if (next >= 0) return { node: { tick: t, over: null, minHeld: Infinity }, packet: new Uint8Array(first.buffer, frameAt(first), len) };
    const packet = this.slabBytes(len);
    let at = 0;
    for (let k = from + 1; k <= t; k++) {
      const pk = this.partAt(p, k)!.built.packet;
      const n = frameBytes(pk);
      packet.set(new Uint8Array(pk.buffer, frameAt(pk), n), at);
      at += n;
    }
    return { node: { tick: t, over: null, minHeld: Infinity }, packet };
  }

  /**
   * The number of distinct ids in the records of `p`'s parts of ticks `from + 1 .. t - 1` (all kept) and `last` (tick
   * `t`'s: its usual part, or its list's ids before that part is made; every list ascending). Where the ids are dense
   * enough, their bit sets (made once per part and tick, see partBits) are or-ed over the ids' range and counted; else
   * (`unionMarks`) each id is counted when its mark is not this count's stamp.
   */
  private unionSize(p: Profile, from: number, t: number, last: TickIds): number {
    const lastN = last.n;
    let lo = lastN > 0 ? last.ids[0]! >>> 5 : 0x7ffffff;
    let hi = lastN > 0 ? last.ids[lastN - 1]! >>> 5 : -1;
    let total = lastN;
    for (let k = from + 1; k < t; k++) {
      const u = this.partAt(p, k)!;
      if (u.n === 0) continue;
      lo = Math.min(lo, u.ids[0]! >>> 5);
      hi = Math.max(hi, u.ids[u.n - 1]! >>> 5);
      total += u.n;
    }
    if (total === 0) return 0;
    const words = hi - lo + 1;
    if (words > 2 * total + 64) return this.unionMarks(p, from, t, last.ids, lastN);
    if (this.unionBits.length < words) this.unionBits = new Int32Array(Math.max(words, 2 * this.unionBits.length));
    const u32 = this.unionBits;
    u32.fill(0, 0, words);
    for (let k = from + 1; k <= t; k++) {
      const u = k < t ? this.partAt(p, k)! : last;
      if (u.n === 0) continue;
      const bits = this.partBits(u);
      const at = u.lo - lo;
      for (let i = 0; i < u.nw; i++) u32[at + i] = u32[at + i]! | bits[i]!;
    }
    let n = 0;
    for (let i = 0; i < words; i++) n += popcount32(u32[i]!);
    return n;
  }

  /** Part `u`'s ids as a bit set: bit `id & 31` of word `(id >>> 5) - u.lo`, `u.nw` words (made on first use). */
  private partBits(u: TickIds): Int32Array {
    if (u.bitsTick === u.tick) return u.bits;
    const ids = u.ids;
    const n = u.n;
    const lo = ids[0]! >>> 5;
    const nw = (ids[n - 1]! >>> 5) - lo + 1;
    if (u.bits.length < nw) u.bits = new Int32Array(Math.max(nw, 2 * u.bits.length));
    const bits = u.bits;
    bits.fill(0, 0, nw);
    for (let j = 0; j < n; j++) {
      const id = ids[j]!;
      bits[(id >>> 5) - lo] = bits[(id >>> 5) - lo]! | (1 << (id & 31));
    }
    u.lo = lo;
    u.nw = nw;
    u.bitsTick = u.tick;
    return bits;
  }

  /** `unionSize` for sparse ids: a mark per id below BY_ID (this count's stamp when met), a set past it. */
  private unionMarks(p: Profile, from: number, t: number, last: Uint32Array, lastN: number): number {
    let mark = this.unionMark;
    const want = Math.min(this.nextId, BY_ID);
    if (mark.length < want) {
      const grown = new Uint8Array(Math.min(BY_ID, Math.max(want, 2 * mark.length, 1024)));
      grown.set(mark);
      this.unionMark = mark = grown;
    }
    let s = this.unionStamp + 1;
    if (s > 255) {
      mark.fill(0);
      s = 1;
    }
    this.unionStamp = s;
    const big = this.unionBig;
    big.clear();
    const size = mark.length;
    let n = 0;
    for (let k = from + 1; k <= t; k++) {
      const u = k < t ? this.partAt(p, k)! : undefined;
      const m = u === undefined ? lastN : u.n;
      const ids = u === undefined ? last : u.ids;
      for (let j = 0; j < m; j++) {
        const id = ids[j]!;
        if (id < size) {
          n += mark[id] !== s ? 1 : 0;
          mark[id] = s;
        } else big.add(id);
      }
    }
    return n + big.size;
  }

  private buildNew(p: Profile, base: Node | null, t: number, mtu: number): Built {
    // without interest and left-out entities, the records against a baseline are last tick's records against it with
    // those of this tick's changed entities redone: merged in id order, the others not even looked at (when nothing
    // waits in the priority accumulator: it must see every entity sent)
    const plain = base !== null && base.over === null && p.interest === undefined;
    const budget = Number.isFinite(mtu) ? (mtu - HEADER_MAX) * 8 : Infinity;
    if (plain && base.tick === t - 1 && p.acc.size === 0 && p.owner === undefined) {
      const next = this.buildNext(p, base, t, budget);
      if (next !== null) return next;
    }
    const cur = this.cur;
    const last = plain && p.acc.size === 0 ? p.prevRecs.get(base.tick) : undefined;
    if (last !== undefined) {
      const merged = this.mergeInto(p, base!, t, last, budget);
      if (merged !== null) return merged;
      // (too big: the packet is made from the entities' records, which the priority accumulator chooses from)
    }
    let n = 0;
    let total = 0;
    /** Creations that renew an id (the new entity's record took the old one's place): the old entity and what the client holds of it. */
    let renewed: Map<Ent, [Ent, number]> | undefined;
    {
      let cands: Ent[];
      if (plain) cands = this.mergedLogs(base!.tick, t);
      else {
        cands = this.candidates(p, base, t);
        // usually already in id order (one tick's changes, set in id order): sort only when not (two entities of one id:
        // the older first, see byId)
        for (let i = 1; i < this.candN; i++) {
          if (byId(cands[i - 1]!, cands[i]!) > 0) {
            cands.length = this.candN;
            cands.sort(byId);
            break;
          }
        }
      }
      const nCands = this.candN;
      this.room(nCands + 1);
      n = 0;
      for (let i = 0; i < nCands; i++) {
        const e = cands[i]!;
        if (!this.record(p, e, base, t, n)) continue;
        // an id despawned and spawned again since the baseline (the old entity's despawn comes first): the new one's
        // creation alone, which replaces what the client holds
        if (n > 0 && cur.id[n - 1] === e.id) {
          // (what the client holds for the id goes with the creation, should that be left out: see below)
          (renewed ??= new Map()).set(e, [cur.e[n - 1]!, cur.held[n - 1]!]);
          this.moveRec(n, n - 1);
        } else n++;
      }
      total = 0;
      let prev = 0;
      const ids = cur.id;
      for (let i = 0; i < n; i++) {
        const id = ids[i]!;
        total += cur.bits[i]! + gammaBits(id - prev);
        prev = id;
      }
    }
    // the records are kept for next tick's packet against this baseline when all go into this packet: `cur` itself
    // becomes the list once the packet is assembled (a pooled list takes its place)
    const handOver = plain && total <= budget;
    let over: Map<Ent, number> | null = null;
    let minHeld = Infinity;
    let deferredCount = 0;
    if (total > budget) {
      const recs: Rec[] = [];
      for (let i = 0; i < n; i++)
        recs.push({ e: cur.e[i]!, held: cur.held[i]!, target: cur.target[i]!, a: cur.a[i]!, off: cur.off[i]!, ebits: cur.ebits[i]!, bits: cur.bits[i]! });
      const [sent, deferred] = this.choose(p, recs, budget);
      n = sent.length;
      for (let i = 0; i < n; i++) {
        const r = sent[i]!;
        cur.id[i] = r.e.id;
        cur.serial[i] = r.e.serial;
        cur.e[i] = r.e;
        cur.held[i] = r.held;
        cur.target[i] = r.target;
        cur.a[i] = r.a;
        cur.off[i] = r.off;
        cur.ebits[i] = r.ebits;
        cur.bits[i] = r.bits;
      }
      if (deferred.length > 0) {
        over = new Map();
        this.anyOver = true;
        for (const r of deferred) {
          if (r.held >= 0 && r.held < minHeld) minHeld = r.held;
          over.set(r.e, r.held);
          p.acc.set(r.e, (p.acc.get(r.e) ?? 0) + 1);
          // a creation that renews an id: the client still holds the entity it replaces (a later packet must despawn
          // it, or renew the id again), and any that one replaced
          for (let x = renewed?.get(r.e); x !== undefined; x = renewed!.get(x[0])) {
            const [old, held] = x;
            if (held >= 0 && held < minHeld) minHeld = held;
            over.set(old, held);
          }
        }
      }
      deferredCount = deferred.length;
    }
    // (records kept from a list are made only when the accumulator is empty)
    if (p.acc.size > 0) for (let i = 0; i < n; i++) p.acc.delete(cur.e[i]!);
    // (the record arrays keep their references until the next build overwrites them)
    // records kept from last tick's list against this baseline are copied from its packet, run by run
    const built: Built = { node: { tick: t, over, minHeld }, packet: this.assemble(t, base, deferredCount, n) };
    if (handOver) p.recs.set(base!.tick, this.handOver(n));
    return built;
  }

  /**
   * `build` of the usual packet: against the tick just before, for a view
   * without interest and owner (every client that acknowledged the last
   * tick): the records of this tick's changed entities, written straight into
   * the packet (no record arrays read back), and kept for next tick's packet
   * against the same baseline. Null (nothing kept) when they do not fit or an
   * id was despawned and spawned again this tick: then the general path.
   */
  private buildNext(p: Profile, base: Node, t: number, budget: number): Built | null {
    const log = this.log.get(t) ?? EMPTY_ENTS;
    const nlog = log.length;
    this.room(nlog + 1);
    const out = this.pkt;
    out.reset();
    if (this.streamOk) {
      // every record is one publishRun wrote (the other entities of the log have none): the body as it is
      if (this.streamBits > budget) return null;
      const sa = this.segA;
      const sf = this.segFrom;
      const st = this.segTo;
      for (let i = 0; i < this.segN; i++) out.appendBits(sa[i]!, sf[i]!, st[i]! - sf[i]!);
      const l = this.streamRecs;
      const n = l.n;
      const cur = this.cur;
      cur.id.set(l.id.subarray(0, n));
      cur.serial.set(l.serial.subarray(0, n));
      cur.g.set(l.g.subarray(0, n));
      return this.keepBuilt(p, base, t, n);
    }
    const b = t - 1;
    let n = 0;
    let prev = 0;
    for (let i = 0; i < nlog; i++) {
      const e = log[i]!;
      // the usual record: an update published at t from the version before, encoded when it was published
      if (e.pubTick === t && e.cTick === t && e.c0From === e.prevPub && e.spawnTick < t && e.despawnTick < 0) {
        const id = e.id;
        if (id === prev) return null;
        // (-1: nothing differs, no record)
        if (e.c0Bits < 0) continue;
        this.putUsual(e, id, prev, n++);
        prev = id;
        if (out.pos > budget) return null;
        continue;
      }
      // (every entity of the log was published, despawned or spawned at t: its version at t - 1 is the one before)
      const held = e.spawnTick >= 0 && e.spawnTick <= b && (e.despawnTick < 0 || b < e.despawnTick) ? this.versionAt(e, b) : -1;
      const target = e.spawnTick >= 0 && e.spawnTick <= t && (e.despawnTick < 0 || t < e.despawnTick) ? e.pubTick : -1;
      if (held === target) continue;
      const id = e.id;
      if (id === prev) return null;
      if (!this.appendRecord(p, e, id, prev, held, target, n)) continue;
      n++;
      prev = id;
      if (out.pos > budget) return null;
    }
    return this.keepBuilt(p, base, t, n);
  }

  /**
   * Write the usual record of `e` (of id `id`, after `prev`) into `pkt` as
   * record `n` of `cur`: the update from the version before its newest, as
   * publish encoded it (`c0`; the caller checked it is that one and not empty).
   */
  private putUsual(e: Ent, id: number, prev: number, n: number): void {
    this.putAt(e, id, prev, e.prevPub, e.pubTick, n, e.c0A, e.c0Off, e.c0Bits);
  }

  /**
   * Encode `e`'s record (from version `held` to `target`) and write it into
   * `pkt` as record `n` of `cur` (its id, serial and start bit); false when it
   * has none (nothing differs).
   */
  private appendRecord(p: Profile, e: Ent, id: number, prev: number, held: number, target: number, n: number): boolean {
    let ebits = 0;
    if (target >= 0) {
      ebits = this.encode(p, e, held, target);
      if (ebits < 0) return false;
    }
    this.putAt(e, id, prev, held, target, n, this.encA, this.encOff, ebits);
    return true;
  }

  /** Record `n` of `cur` (`e`'s, of id `id`, after `prev`): its keys in `cur`, its bits into `pkt` (see putRecord). */
  private putAt(e: Ent, id: number, prev: number, held: number, target: number, n: number, a: Uint32Array, off: number, ebits: number): void {
    const cur = this.cur;
    const out = this.pkt;
    cur.id[n] = id;
    cur.serial[n] = e.serial;
    cur.g[n] = out.pos;
    putRecord(out, id - prev, held, target, e.type, this.typeBits, a, off, ebits);
  }

  /** The packet of the `n` records written into `pkt` (nothing left out), and `cur` kept as its baseline's list for next tick. */
  private keepBuilt(p: Profile, base: Node, t: number, n: number): Built {
    const built: Built = { node: { tick: t, over: null, minHeld: Infinity }, packet: this.finish(t, base, 0, n) };
    p.recs.set(base.tick, this.handOver(n));
    return built;
  }

  /** The first `n` records as a record list: `cur` itself (a pooled list takes its place: no copy), with the packet body. */
  private handOver(n: number): RecList {
    const l = this.cur;
    this.cur = this.freeRecLists.pop() ?? newRecList();
    // the packet body just assembled, with a zero word after it (appendBits reads one word ahead)
    const out = this.pkt;
    const words = (out.pos + 31) >>> 5;
    if (l.body.length < words + 1) l.body = new Uint32Array(Math.max(words + 1, l.body.length * 2, 64));
    l.body.set(out.words.subarray(0, words));
    l.body[words] = 0;
    l.bodyBits = out.pos;
    l.n = n;
    return l;
  }

  /** The record of entity `e` against `base` at tick `t` as record `n` of the record arrays; false when there is none. */
  private record(p: Profile, e: Ent, base: Node | null, t: number, n: number): boolean {
    const held = base === null ? -1 : this.held(p, e, base);
    const target = this.visible(p, e, t) ? e.pubTick : -1;
    if (held === target) return false;
    let ebits: number;
    let bits: number;
    if (target < 0) {
      this.encA = NO_ARENA;
      this.encOff = 0;
      ebits = 0;
      bits = 2;
    } else {
      ebits = this.encode(p, e, held, target);
      if (ebits < 0) return false;
      bits = held < 0 ? 2 + this.typeBits + ebits : 1 + ebits;
    }
    const cur = this.cur;
    cur.id[n] = e.id;
    cur.serial[n] = e.serial;
    cur.e[n] = e;
    cur.held[n] = held;
    cur.target[n] = target;
    cur.a[n] = this.encA;
    cur.off[n] = this.encOff;
    cur.ebits[n] = ebits;
    cur.bits[n] = bits;
    return true;
  }

  /**
   * The packet against `base` at tick `t` from `last`, the records against it
   * at tick `t - 1`, written as it is merged: the records of the entities
   * changed at `t` made anew, the others kept (nothing about them changed) as
   * runs of `last`'s packet body copied bit for bit with only the first id gap
   * rewritten, in id order. The records are kept for next tick's packet against
   * the same baseline. Null (nothing kept) when the packet does not fit `budget`
   * or an id was despawned and spawned again: then the record-by-record path.
   */
  private mergeInto(p: Profile, base: Node, t: number, last: RecList, budget: number): Built | null {
    const log = this.log.get(t) ?? EMPTY_ENTS;
    const nlog = log.length;
    const lid = last.id;
    const lser = last.serial;
    const lg = last.g;
    const nl = last.n;
    this.room(nl + nlog);
    const cur = this.cur;
    const cid = cur.id;
    const cser = cur.serial;
    const cg = cur.g;
    const out = this.pkt;
    out.reset();
    // this tick's log as ids and serials (made once per tick, read by every merge)
    if (this.logKeysTick !== t) this.logKeys(log, t);
    const logId = this.logId;
    const logSer = this.logSer;
    let n = 0;
    let i = 0;
    let j = 0;
    let prev = 0;
    /** The id whose record in last was dropped last. */
    let dropped = -1;
    for (;;) {
      const lim = j < nlog ? logId[j]! : Infinity;
      // a run of kept records (on equal ids, last's go first, as in a merge): its id gap anew, then its bits as they
      // are in last's body (the gaps inside the run are the same)
      let i2 = i;
      while (i2 < nl && lid[i2]! < lim) i2++;
      // (the usual: last's record of this id is of the log's entity; else one of an entity the id had before)
      while (i2 < nl && lid[i2] === lim && lser[i2] !== logSer[j] && !inLogAt(log, j, lser[i2]!)) i2++;
      if (i2 > i) {
        const first = lid[i]!;
        const from = lg[i]! + gammaBits(first - (i > 0 ? lid[i - 1]! : 0));
        cid[n] = first;
        cser[n] = lser[i]!;
        cg[n++] = out.pos;
        writeGamma(out, first - prev);
        const shift = out.pos - from;
        out.appendBits(last.body, from, (i2 < nl ? lg[i2]! : last.bodyBits) - from);
        for (let k = i + 1; k < i2; k++) {
          cid[n] = lid[k]!;
          cser[n] = lser[k]!;
          cg[n++] = lg[k]! + shift;
        }
        prev = lid[i2 - 1]!;
        i = i2;
        if (out.pos > budget) return null;
      }
      // an entity of this tick's log: its record in last is dropped, and redone below
      if (i < nl && lid[i] === lim) {
        i++;
        dropped = lim;
        continue;
      }
      if (j >= nlog) break;
      const e = log[j++]!;
      // (an id despawned and spawned again: the record-by-record path)
      if (n > 0 && cid[n - 1] === lim) return null;
      // the usual record of an entity published at t and last before at or below the baseline (so that the version
      // held is the one before): the update publish encoded (see buildNext)
      if (
        p.owner === undefined &&
        e.pubTick === t &&
        e.prevPub <= base.tick &&
        e.cTick === t &&
        e.c0From === e.prevPub &&
        e.spawnTick >= 0 &&
        e.spawnTick <= base.tick &&
        e.despawnTick < 0
      ) {
        if (e.c0Bits < 0) continue;
        this.putUsual(e, lim, prev, n++);
        prev = lim;
        if (out.pos > budget) return null;
        continue;
      }
      const held = this.held(p, e, base);
      const target = this.visible(p, e, t) ? e.pubTick : -1;
      // an entity that came and went since the baseline, whose creation last had: that creation may have renewed the
      // id over an older entity the client holds, whose despawn it carried (the record-by-record path sends it)
      if (held === target && held < 0 && dropped === lim) return null;
      if (held === target || !this.appendRecord(p, e, lim, prev, held, target, n)) continue;
      n++;
      prev = lim;
      if (out.pos > budget) return null;
    }
    return this.keepBuilt(p, base, t, n);
  }

  /** Record `from` of `cur` (one made by `record`) as record `to`. */
  private moveRec(from: number, to: number): void {
    const c = this.cur;
    c.id[to] = c.id[from]!;
    c.serial[to] = c.serial[from]!;
    c.e[to] = c.e[from]!;
    c.held[to] = c.held[from]!;
    c.target[to] = c.target[from]!;
    c.a[to] = c.a[from]!;
    c.off[to] = c.off[from]!;
    c.ebits[to] = c.ebits[from]!;
    c.bits[to] = c.bits[from]!;
  }

  /** Room for `n` records in `cur`. */
  private room(n: number): void {
    recCapacity(this.cur, n);
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

  /** The packet of the first `n` records of `cur` (their id gaps' positions go to `cur.g`). */
  private assemble(t: number, base: Node | null, deferred: number, n: number): Uint8Array {
    const out = this.pkt;
    out.reset();
    const cur = this.cur;
    const recE = cur.e;
    const recId = cur.id;
    const recHeld = cur.held;
    const recTarget = cur.target;
    const recA = cur.a;
    const recOff = cur.off;
    const recEBits = cur.ebits;
    const recG = cur.g;
    const typeBits = this.typeBits;
    let prev = 0;
    for (let i = 0; i < n; i++) {
      const id = recId[i]!;
      recG[i] = out.pos;
      putRecord(out, id - prev, recHeld[i]!, recTarget[i]!, recE[i]!.type, typeBits, recA[i]!, recOff[i]!, recEBits[i]!);
      prev = id;
    }
    return this.finish(t, base, deferred, n);
  }

  /** The packet of the body in `pkt`: the header (tick, baseline, `deferred`, `n` records), then the body, in the slab. */
  private finish(t: number, base: Node | null, deferred: number, n: number): Uint8Array {
    const out = this.pkt;
    // header: magic, schema hash, session, then four varints
    const h = this.head;
    h[0] = STATE_MAGIC;
    const hash = this.hash;
    h[1] = hash & 0xff;
    h[2] = (hash >>> 8) & 0xff;
    h[3] = (hash >>> 16) & 0xff;
    h[4] = hash >>> 24;
    const ses = this.session;
    h[5] = ses & 0xff;
    h[6] = (ses >>> 8) & 0xff;
    h[7] = (ses >>> 16) & 0xff;
    h[8] = ses >>> 24;
    let k = 9;
    k = putVarint(h, k, t);
    k = putVarint(h, k, base === null ? 0 : t - base.tick);
    k = putVarint(h, k, deferred);
    k = putVarint(h, k, n);
    const packet = this.slabBytes(k + ((out.pos + 7) >>> 3));
    for (let i = 0; i < k; i++) packet[i] = h[i]!;
    out.bytesInto(packet, k);
    return packet;
  }

  /**
   * `len` bytes for a packet: packets are views of a shared slab (one allocation per `testHooks.slab` bytes, 64 KiB, not one per packet:
   * a packet this size would have its own off-heap store), never overwritten.
   */
  private slabBytes(len: number): Uint8Array {
    if (this.partTo !== null) return this.partBytes(this.partTo, len);
    let slab = this.slab;
    if (this.slabPos + len > slab.length) {
      this.slab = slab = new Uint8Array(Math.max(testHooks.slab, len));
      this.slabPos = 0;
    }
    const packet = slab.subarray(this.slabPos, this.slabPos + len);
    this.slabPos += (len + 7) & ~7;
    return packet;
  }
  /**
   * `len` bytes for profile `p`'s usual packet, framed as a bundle part (BUNDLE_MAGIC, the length, the packet) in the
   * profile's part slab, right after the usual packet before it: a bundle of consecutive parts is then a view of the
   * slab (see makeBundle). The packet sent alone is the view after the frame's head.
   */
  private partBytes(p: Profile, len: number): Uint8Array {
    const head = 1 + varintBytes(len);
    let slab = p.partSlab;
    let at = p.partPos;
    if (at + head + len > slab.length) {
      p.partSlab = slab = new Uint8Array(Math.max(testHooks.slab, head + len));
      at = 0;
    }
    slab[at] = BUNDLE_MAGIC;
    putVarint(slab, at + 1, len);
    p.partPos = at + head + len;
    return slab.subarray(at + head, at + head + len);
  }
}

/**
 * For tests (not exported by the package): `generalOnly` set while a server is
 * made gives it no one-pass publish (publishRun) and so no tick stream: every
 * change goes through publish and every packet through the general build, the
 * reference that the fast paths' bytes are compared with. `slab`: the bytes of
 * each new packet slab and part slab (see slabBytes, partBytes). `mergeBits`
 * false: `mergedLogs` always merges (no bit set); `mergedByBits` /
 * `mergedByMerge` count the calls that took each way.
 */
export const testHooks = { generalOnly: false, slab: 65536, mergeBits: true, mergedByBits: 0, mergedByMerge: 0 };

/** Client keys below this (integers from 0) are found by index (see `smallKeys`). */
const SMALL_KEYS = 4096;

function isSmallKey(key: ClientKey): key is number {
  return typeof key === 'number' && key >>> 0 === key && key < SMALL_KEYS;
}

const EMPTY_ENTS: Ent[] = [];

/** `slotHit`: no encoding there (-1 is an encoding: nothing differs). */
const MISS = -3;

/** Ids below this are also kept in an array (ReplicationServer.byId). */
const BY_ID = 1 << 20;

/** Words per encoding arena (a new one when full; old ones live as long as encodings cached in them). */
const ARENA_WORDS = 16384;

/**
 * Write one record: its id gap, then a despawn (`target` < 0: ops 1, 1), a
 * creation (`held` < 0: ops 1, 0, the type, the body) or an update (op 0, the
 * body); the body is `ebits` bits of `a` from word `off`.
 */
function putRecord(out: BitOut, gap: number, held: number, target: number, type: number, typeBits: number, a: Uint32Array, off: number, ebits: number): void {
  writeGamma(out, gap);
  if (target < 0) out.write(3, 2);
  else if (held < 0) {
    out.write(1, 2);
    out.write(type, typeBits);
    out.appendBits(a, off, ebits);
  } else {
    out.write(0, 1);
    out.appendBits(a, off, ebits);
  }
}

/** A copy of `a` twice as long. */
function growI32(a: Int32Array): Int32Array {
  const b = new Int32Array(2 * a.length);
  b.set(a);
  return b;
}

/** `e`'s encoding cache after a publish at `t`: only the update from version `from`, `bits` bits of `a` from bit `off`. */
/** Where the frame of a usual packet `pk` (made by partBytes: BUNDLE_MAGIC, its length, the packet) starts in its buffer. */
function frameAt(pk: Uint8Array): number {
  return pk.byteOffset - 1 - varintBytes(pk.length);
}

/** The bytes of that frame. */
function frameBytes(pk: Uint8Array): number {
  return 1 + varintBytes(pk.length) + pk.length;
}

function setUsual(e: Ent, t: number, from: number, a: Uint32Array, off: number, bits: number): void {
  e.cTick = t;
  e.c0From = from;
  e.c0A = a;
  e.c0Off = off;
  e.c0Bits = bits;
  e.c1From = -2;
  e.ccBits = -1;
  e.cMore = undefined;
}

/**
 * Publish field `i` of `e` (numeric slot `c`, -1: none, of its row at `nb` in `nv`, of `nn` numeric fields): its
 * published value goes into the undo row being written, its working value replaces it.
 */
function publishField(e: Ent, i: number, h: History, c: number, nv: Float64Array, nb: number, nn: number): void {
  if (c >= 0) {
    const at = nb + nn + c;
    h.putN(nv[at]!);
    nv[at] = nv[nb + c]!;
  } else {
    h.put(e.pub[i]);
    e.pub[i] = e.work[i];
  }
}

/** Whether the entity of serial `serial` is in `log` (sorted by id) from index `j` on with `log[j]`'s id (ids can be reused). */
function inLogAt(log: readonly Ent[], j: number, serial: number): boolean {
  if (j >= log.length) return false;
  const id = log[j]!.id;
  for (let k = j; k < log.length && log[k]!.id === id; k++) if (log[k]!.serial === serial) return true;
  return false;
}

/**
 * Empty a long-lived map by deleting its keys, not with `clear()`: `clear()` gives the map a new table and leaves the
 * old one, still holding every entry, as garbage in the old generation, where it keeps those entries' young objects
 * (versions, packets) alive through every minor collection until the next full one — measured on S4: scavenge pauses
 * 1,680 ms against 252 ms over the same run, and about 2x the server time per tick.
 */
function emptyMap<K, V>(m: Map<K, V>): void {
  for (const k of m.keys()) m.delete(k);
}

/** Id order; two entities of one id (despawned and spawned again) by age: the older spawned at an earlier tick. */
function byId(a: Ent, b: Ent): number {
  return a.id - b.id || a.spawnTick - b.spawnTick;
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

/**
 * One column's part of the change scan (see ReplicationServer.scanColumns), for
 * columns whose raw values are a Uint32Array (f32 bits, u32): `n` float64 words
 * of `per` rows each. 8 bytes at a time: equal float64 words that are not zero
 * have equal bits (a NaN is never equal, and +0 / -0 are equal with different
 * bits); the rows of any other word are compared one by one. A changed row's
 * raw value goes to `seen` and to its working slot in `v` (`at` after the
 * row's start), its field's `bit` into `cm`, and the row (the first time) into `list`.
 */
function scanColumn32(
  raw: Uint32Array,
  seen: Uint32Array,
  r64: Float64Array,
  s64: Float64Array,
  n: number,
  per: number,
  v: Float64Array,
  stride: number,
  at: number,
  cm: Int32Array,
  bit: number,
  list: Int32Array,
  nr: number,
): number {
  for (let i = 0; i < n; i++) {
    const a = r64[i]!;
    if (a === s64[i] && a !== 0) continue;
    if (a === 0 && s64[i] === 0 && Object.is(a, s64[i])) continue;
    for (let r = i * per, end = r + per; r < end; r++) {
      const x = raw[r]!;
      if (x === seen[r]) continue;
      seen[r] = x;
      v[r * stride + at] = x;
      const m = cm[r]!;
      cm[r] = m | bit;
      if (m === 0) list[nr++] = r;
    }
  }
  return nr;
}

/**
 * scanColumn32 for two 32-bit columns (`a`, `b`; two rows per float64 word):
 * one branch per two rows for both columns, taken when either column's word
 * differs (or is ±0 or NaN, where float64 equality is not bit equality), and
 * the rows' work after it without branches (a changed row is as likely the
 * first of the two as the second: a branch there is mispredicted half the
 * time). The changed rows of each column are listed in `pend` (column a's
 * from 0, b's from `cap`), and only they get their new working value after the
 * scan: a row's values are on its own cache lines, touched only when it changed.
 */
function scanPair32(
  ra: Uint32Array,
  sa: Uint32Array,
  ra64: Float64Array,
  sa64: Float64Array,
  rb: Uint32Array,
  sb: Uint32Array,
  rb64: Float64Array,
  sb64: Float64Array,
  n: number,
  v: Float64Array,
  stride: number,
  atA: number,
  atB: number,
  cm: Int32Array,
  bitA: number,
  bitB: number,
  list: Int32Array,
  nr: number,
  pend: Int32Array,
  cap: number,
): number {
  let na = 0;
  let nb = cap;
  for (let i = 0; i < n; i++) {
    const a = ra64[i]!;
    const b = rb64[i]!;
    if (a === sa64[i] && b === sb64[i] && (a !== 0 || Object.is(a, sa64[i])) && (b !== 0 || Object.is(b, sb64[i]))) continue;
    for (let r = 2 * i, end = r + 2; r < end; r++) {
      const x = ra[r]!;
      const y = rb[r]!;
      const da = x !== sa[r] ? 1 : 0;
      const db = y !== sb[r] ? 1 : 0;
      sa[r] = x;
      sb[r] = y;
      pend[na] = r;
      na += da;
      pend[nb] = r;
      nb += db;
      const m = cm[r]!;
      const bits = (bitA & -da) | (bitB & -db);
      cm[r] = m | bits;
      list[nr] = r;
      nr += (da | db) & (m === 0 ? 1 : 0);
    }
  }
  for (let i = 0; i < na; i++) {
    const r = pend[i]!;
    v[r * stride + atA] = ra[r]!;
  }
  for (let i = cap; i < nb; i++) {
    const r = pend[i]!;
    v[r * stride + atB] = rb[r]!;
  }
  return nr;
}

/** scanColumn32 for the other column arrays (a loop of its own, so that the usual f32 columns' loop sees one array type). */
function scanColumnAny(
  raw: Exclude<ColumnArray, Float32Array>,
  seen: Exclude<ColumnArray, Float32Array>,
  r64: Float64Array,
  s64: Float64Array,
  n: number,
  per: number,
  v: Float64Array,
  stride: number,
  at: number,
  cm: Int32Array,
  bit: number,
  list: Int32Array,
  nr: number,
): number {
  for (let i = 0; i < n; i++) {
    const a = r64[i]!;
    if (a === s64[i] && a !== 0) continue;
    if (a === 0 && s64[i] === 0 && Object.is(a, s64[i])) continue;
    for (let r = i * per, end = r + per; r < end; r++) {
      const x = raw[r]!;
      if (x === seen[r]) continue;
      seen[r] = x;
      v[r * stride + at] = x;
      const m = cm[r]!;
      cm[r] = m | bit;
      if (m === 0) list[nr++] = r;
    }
  }
  return nr;
}

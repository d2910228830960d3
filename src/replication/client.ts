/**
 * The client side of the replication engine: applies the server's packets to a
 * mirror of the world, keeps a short history so that any recent tick can be a
 * baseline, and produces acknowledgements.
 *
 * Entities are changed in place. The history is one undo log per kept tick
 * (the old values of the fields it changed, or the entity it replaced), from
 * which what the client held at an older baseline is rebuilt. Updates against
 * the mirror's own tick are applied as they are read; creations, removals and
 * anything against an older baseline once the whole packet is read. A
 * DecodeError undoes what was applied, so it leaves the mirror exactly as it was.
 */
import { ByteReader } from '../core/reader.js';
import { DecodeError, EncodeError, rethrowAt } from '../core/errors.js';
import type { ClientMirror, MirrorChanges, MirrorIssue } from '../core/mirror.js';
import { BitIn, bitLength, readGamma } from './bits.js';
import { applyDiffs, planOf, readBodyApply, readBodyInto, readDiffs, type Plan } from './codec.js';
import { checkDefs, schemaHash, type AnyEntityDef, type EntityDef, type Fields, type ValuesOf } from './schema.js';
import { FloatBits, fromRaw, rawEq } from './values.js';
import { ACK_MAGIC, BUNDLE_MAGIC, STATE_MAGIC, hex32 } from './wire.js';
import { BY_ID, ChangedMap, EntityView, searchSorted } from './maps.js';

/**
 * One entity as a client sees it: its type name, typed values, and raw values
 * (floats as bits). The object stays the same while the entity exists with
 * this type; its `values` object and its `raw` array are updated in place
 * (copy them to keep a snapshot).
 */
export class ReplicatedEntity<N extends string = string, V = Record<string, unknown>> {
  private cache: V | undefined;
  constructor(
    readonly type: N,
    readonly def: AnyEntityDef,
    /**
     * Raw values in field order: f32 as uint32 bits, f64 as [hi, lo], ref as 0 | id, quantized as steps.
     * Bytes (and arrays) here are the mirror's own, shared with its history: read them, never write into
     * them (`values` gives copies of bytes).
     */
    readonly raw: readonly unknown[],
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
      c = newValues(this.def, this.raw, this.fb) as V;
      this.cache = c;
    }
    return c;
  }

  /** @internal The values object, if made. */
  get cached(): V | undefined {
    return this.cache;
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
      // (two stores: a float joined with fromRaw's value would be boxed first)
      if (fi.kind === 'f32') storeField(c, i, fi.name, fb.f32Value(raw[i] as number));
      else storeField(c, i, fi.name, fromRaw(fi.f, raw[i], fb));
    }
  }

  /** @internal Convert the fields at `indices` into the values object, if there is one. */
  refreshAt(indices: readonly number[]): void {
    const c = this.cache as Record<string, unknown> | undefined;
    if (c === undefined) return;
    for (const i of indices) c[this.def.list[i]!.name] = fromRaw(this.def.list[i]!.f, this.raw[i], this.fb);
  }
}

/**
 * Per entity type, a constructor of plain objects (prototype Object.prototype)
 * for the values objects. Objects made by it get maps of their own: a literal
 * or `{}` with the same keys in the same order (the type's own fields object,
 * `{ x: t.f32(), ... }`) shares its property layout, and there x holds a Field
 * object, so a number stored in x of a `{}` is a tagged field: a new heap
 * number per store. Here a float field stays a float field, updated in place.
 */
const valuesCtors = new WeakMap<AnyEntityDef, new () => Record<string, unknown>>();

/** The values object of `raw`: what `valuesOf` gives, made by the type's constructor. */
function newValues(def: AnyEntityDef, raw: readonly unknown[], fb: FloatBits): Record<string, unknown> {
  let V = valuesCtors.get(def);
  if (V === undefined) {
    // biome-ignore lint/complexity/useArrowFunction: a constructor (an arrow function is not one)
    const f = function () {} as unknown as { prototype: object };
    f.prototype = Object.prototype;
    V = f as unknown as new () => Record<string, unknown>;
    valuesCtors.set(def, V);
  }
  const o = new V();
  const list = def.list;
  for (let i = 0; i < list.length; i++) o[list[i]!.name] = fromRaw(list[i]!.f, raw[i], fb);
  return o;
}

/**
 * `c[name] = v` for field `i`: a store site per field index for the first 8
 * fields, so that each sees one property name per entity type (a named store
 * once optimised) rather than every field's (a generic keyed store).
 */
function storeField(c: Record<string, unknown>, i: number, name: string, v: unknown): void {
  switch (i) {
    case 0:
      c[name] = v;
      return;
    case 1:
      c[name] = v;
      return;
    case 2:
      c[name] = v;
      return;
    case 3:
      c[name] = v;
      return;
    case 4:
      c[name] = v;
      return;
    case 5:
      c[name] = v;
      return;
    case 6:
      c[name] = v;
      return;
    case 7:
      c[name] = v;
      return;
    default:
      c[name] = v;
  }
}

/**
 * `c[name]` of field `i` (a number or a bool), for `updateRun` to load the line that holds it: as `storeField`, a load
 * site per field index for the first 8.
 */
function loadField(c: Record<string, unknown>, i: number, name: string): number {
  switch (i) {
    case 0:
      return c[name] as number;
    case 1:
      return c[name] as number;
    case 2:
      return c[name] as number;
    case 3:
      return c[name] as number;
    case 4:
      return c[name] as number;
    case 5:
      return c[name] as number;
    case 6:
      return c[name] as number;
    case 7:
      return c[name] as number;
    default:
      return c[name] as number;
  }
}

/** What `applyRun`'s loads add up to (kept, so that they are made). */
// biome-ignore lint/correctness/noUnusedVariables: written only, so that the loads it sums are made
let runSink = 0;

/** Records `updateRun` reads ahead at most (their lines stay well within a core's cache). */
const RUN = 256;

/**
 * Entities a mirror holds at least for `parse` to read updates in runs (`updateRun`). Measured on S2's world scaled
 * (10 % of the entities moving per tick, the client beside a server and Colyseus in one process): runs save 16–33 %
 * of the client's time at 6,000 and 10,000 entities, break even at 4,000, and cost 5–10 % at 1,000 and 2,000.
 */
const RUN_MIRROR = 4096;

/**
 * @internal What one applied tick changed, as undo entries (one per id it
 * changed, the history a baseline older than the mirror is rebuilt from):
 * either the entity held for the id before the tick (`before`: an entity or
 * null; the id's entity was replaced, created or removed), or the old values
 * of the fields the tick changed in place (`before` undefined; `masks` and
 * the values from `ats` on in `vals`, or with `ats` < 0 a whole copy of the
 * old raw at `vals[-ats - 1]`).
 */
export class TickLog {
  tick = 0;
  n = 0;
  nv = 0;
  readonly ids: number[] = [];
  readonly before: (ReplicatedEntity | null | undefined)[] = anyArray();
  readonly masks: number[] = [];
  readonly ats: number[] = [];
  /** Old raw values: Smis, heap numbers, strings, ... (an array for any value from the start, see anyArray). */
  readonly vals: unknown[] = anyArray();
  /** Entries with a `before`. */
  replaced = 0;
  /** Ids in ascending order (else `sort` must run before the log is read). */
  sorted = true;

  reset(tick: number): this {
    // (stale values past `nv` stay until overwritten: at most one packet's worth per kept log)
    if (this.replaced > 0) this.before.fill(undefined, 0, this.n);
    this.replaced = 0;
    this.tick = tick;
    this.n = 0;
    this.nv = 0;
    this.sorted = true;
    return this;
  }

  /** Add an entry for `id` (ids of one tick are distinct); returns its index. */
  add(id: number, before: ReplicatedEntity | null | undefined, mask: number, at: number): void {
    const k = this.n++;
    if (k > 0 && this.ids[k - 1]! >= id) this.sorted = false;
    this.ids[k] = id;
    this.before[k] = before;
    if (before !== undefined) this.replaced++;
    this.masks[k] = mask;
    this.ats[k] = at;
  }

  /** Put the entries in ascending order of id. */
  sort(): void {
    if (this.sorted) return;
    const n = this.n;
    const ids = this.ids;
    // the usual case, two ascending runs (the updates applied while a packet was read, then what commit added): merged
    let cut = 0;
    for (let k = 1; k < n; k++) {
      if (ids[k - 1]! < ids[k]!) continue;
      cut = cut === 0 ? k : -1;
      if (cut < 0) break;
    }
    if (cut > 0) {
      const order = sortOrder;
      let i = 0;
      let j = cut;
      for (let k = 0; k < n; k++) order[k] = j === n || (i < cut && ids[i]! < ids[j]!) ? i++ : j++;
      this.permute(order, n);
    } else if (n > SORT_PLACES) {
      const order = Array.from({ length: n }, (_, k) => k).sort((x, y) => ids[x]! - ids[y]!);
      this.permute(order, n);
    } else {
      // each entry's id and place as one number (ids below 2^32, places below 2^20: exact in a double), sorted
      // natively (ids of one tick are distinct)
      if (sortKeys.length < n) sortKeys = new Float64Array(Math.max(n, 2 * sortKeys.length));
      const keys = sortKeys.subarray(0, n);
      for (let k = 0; k < n; k++) keys[k] = ids[k]! * SORT_PLACES + k;
      keys.sort();
      const order = sortOrder;
      // (the place: the key less its id part, without a floating-point remainder)
      for (let k = 0; k < n; k++) order[k] = keys[k]! - Math.floor(keys[k]! / SORT_PLACES) * SORT_PLACES;
      this.permute(order, n);
    }
    this.sorted = true;
  }

  /** Entry `order[k]` to place k, for k below `n`. */
  private permute(order: readonly number[], n: number): void {
    const ids = tmpNums(0, n);
    const masks = tmpNums(1, n);
    const ats = tmpNums(2, n);
    const before = tmpBefore;
    for (let k = 0; k < n; k++) {
      const j = order[k]!;
      ids[k] = this.ids[j]!;
      masks[k] = this.masks[j]!;
      ats[k] = this.ats[j]!;
      before[k] = this.before[j];
    }
    for (let k = 0; k < n; k++) {
      this.ids[k] = ids[k]!;
      this.masks[k] = masks[k]!;
      this.ats[k] = ats[k]!;
      this.before[k] = before[k];
      before[k] = undefined;
    }
  }

  /** The entry of `id`, or -1. */
  find(id: number): number {
    return searchSorted(this.ids, this.n, id);
  }

  /** Undo entry `k` (an in-place change) on `raw`. */
  undo(k: number, raw: unknown[]): void {
    const at = this.ats[k]!;
    if (at < 0) {
      const old = this.vals[-at - 1] as unknown[];
      for (let f = 0; f < old.length; f++) raw[f] = old[f];
      return;
    }
    let m = this.masks[k]!;
    let v = at;
    while (m !== 0) {
      raw[31 - Math.clz32(m & -m)] = this.vals[v++];
      m &= m - 1;
    }
  }
}

/** `src`'s values in `dst` (its length made `src`'s); returns `dst`. */
function copyRaw(dst: unknown[], src: readonly unknown[]): unknown[] {
  const n = src.length;
  if (dst.length !== n) dst.length = n;
  for (let i = 0; i < n; i++) dst[i] = src[i];
  return dst;
}

/** TickLog.sort's places per id in a sort key, and its scratch (keys, the order they give, copies of the entries). */
const SORT_PLACES = 1 << 20;
let sortKeys = new Float64Array(256);
const sortOrder: number[] = [];
const tmpNumArrays: number[][] = [[], [], []];
const tmpBefore: (ReplicatedEntity | null | undefined)[] = [];
function tmpNums(i: number, n: number): number[] {
  const a = tmpNumArrays[i]!;
  if (a.length < n) a.length = n;
  return a;
}

/**
 * An empty array whose elements may be any value from the start: every log's
 * arrays then have the same elements kind (one map at their store sites),
 * whatever values (small integers, heap numbers, strings) each log got first.
 */
function anyArray<T>(): T[] {
  const a = [undefined] as T[];
  a.length = 0;
  return a;
}

/** Record kinds of a parsed packet (updates against the mirror's tick are applied while reading, not kept). */
const REPLACE = 1; // a whole new raw (a creation, or an update against an older baseline or of more than 32 fields)
const DESPAWN = 2;
const RENEW = 3; // a creation over an entity held at the baseline: the old one goes, the new one comes
const APPLIED = 4; // an update against an older baseline, applied while reading (see parse)

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
  changed: ReadonlyMap<number, readonly string[]>;
  despawned: number[];
  /** Entities the server left out of this packet (0: the mirror is the server's view at `tick`). */
  deferred: number;
  /** Set when the packet was not applied: `old` (not newer than the mirror) or `missing-baseline`. */
  ignored?: 'old' | 'missing-baseline';
}

/** A result while it is made (its `changed` still takes entries). */
interface Result extends ReceiveResult {
  changed: ChangedMap;
}

export interface ClientOptions<Defs extends readonly AnyEntityDef[]> {
  entities: Defs;
  /** Ticks of history kept for baselines (default 32; must be at least the server's `baselineWindow`, default 32). */
  window?: number;
}

/**
 * A decoded packet before it is applied (one per client, reused): the records
 * 0..n-1 still to apply. On the usual path (baseline = the mirror's tick)
 * updates are applied while reading, into `log` and `res`; a bad record
 * undoes them (`rollback`), so an error still leaves the mirror as it was.
 */
interface Parsed {
  n: number;
  tick: number;
  base: number | null;
  deferred: number;
  ids: number[];
  kinds: number[];
  /** REPLACE: the type and the new raw (the client's to keep). */
  defs: (AnyEntityDef | null)[];
  raws: (unknown[] | null)[];
  /** REPLACE records (whose `defs` and `raws` are cleared after). */
  replaced: number;
  log: TickLog | null;
  res: Result | null;
}

export class ReplicationClient<Defs extends readonly AnyEntityDef[] = readonly AnyEntityDef[]> implements ClientMirror {
  readonly defs: Defs;
  readonly hash: number;
  readonly window: number;
  private readonly typeBits: number;
  /** Each type's default raw values, by type index, in a plain array (a copy of a frozen array is slow to make). */
  private readonly fresh: unknown[][];
  private readonly fb = new FloatBits();
  private readonly view = new EntityView<ReplicatedEntity>((e) => e.def);
  /** The same entities by id for ids below BY_ID (the usual dense ids): one array load per record in `parse`. */
  private readonly byId = this.view.byId;
  /** The type of each entity of `byId` (same index). */
  private readonly defById = this.view.tags as (AnyEntityDef | undefined)[];
  /** `updateRun`'s scratch: each update's entity, raw, values object, id and mask, and their differences. */
  private readonly runE: (ReplicatedEntity | undefined)[] = [];
  private readonly runRaw: (unknown[] | undefined)[] = [];
  private readonly runC: (Record<string, unknown> | undefined)[] = [];
  private readonly runId = new Int32Array(RUN);
  private readonly runMask = new Int32Array(RUN);
  private runZz = new Uint32Array(RUN * 2);
  /** The last id `updateRun` read. */
  private runLast = 0;
  /** Applied ticks from the history floor on (ascending), with what each changed. */
  private readonly logs: TickLog[] = [];
  /** `heldFrom`'s cursors and its result's raw. */
  private readonly cursors: number[] = [];
  private heldRaw: unknown[] | null = null;
  /** `heldFrom`'s raw, reused from record to record. */
  private readonly heldScratch: unknown[] = [];
  /** Logs of ticks no longer kept, for reuse. */
  private readonly freeLogs: TickLog[] = [];
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
  private readonly scratch: Parsed = {
    n: 0,
    tick: 0,
    base: null,
    deferred: 0,
    ids: [],
    kinds: [],
    defs: anyArray(),
    raws: anyArray(),
    replaced: 0,
    log: null,
    res: null,
  };
  /**
   * The newest baseline the server has used. The server's baselines never go
   * back (it deltas against the newest ack, or sends a full state), so history
   * older than this is never needed again.
   */
  private floor = 0;
  /** Within a bundle: logs are kept until it is applied whole (a later part's error undoes the earlier parts). */
  private holding = false;
  /** The session of the server this mirror follows (0: none yet), and the last few it left (their packets are old). */
  private ses = 0;
  private readonly left: number[] = [];

  constructor(opts: ClientOptions<Defs>) {
    checkDefs(opts.entities);
    this.defs = opts.entities;
    this.hash = schemaHash(opts.entities);
    this.window = opts.window ?? 32;
    if (!Number.isInteger(this.window) || this.window < 1) throw new EncodeError('window', 'must be a positive integer');
    this.typeBits = bitLength(opts.entities.length - 1);
    this.fresh = opts.entities.map((d) => {
      const a = anyArray<unknown>();
      for (const v of d.defaults) a.push(v);
      return a;
    });
  }

  /** What this client currently sees. */
  get entities(): ReadonlyMap<number, EntityOf<Defs>> {
    return this.view as unknown as ReadonlyMap<number, EntityOf<Defs>>;
  }

  /** The session of the server this mirror follows (0 before any packet is applied; see `ServerOptions.session`). */
  get session(): number {
    return this.ses;
  }

  /** @internal Whether this mirror followed `session` before the one it follows now (its packets are old). */
  followedBefore(session: number): boolean {
    return this.left.includes(session);
  }

  /** The tick of the newest applied packet (0 before any). */
  get tick(): number {
    return this.latest;
  }

  /** The acknowledgement to send back (acked delivery): the newest applied tick. */
  ack(): Uint8Array {
    // magic, schema hash (u32 LE), the session followed (u32 LE, 0: none yet), newest applied tick (LEB128): one
    // exact-size array, no writer
    let v = this.latest;
    let n = 10;
    for (let x = v; x >= 0x80; x = Math.floor(x / 128)) n++;
    const a = new Uint8Array(n);
    const h = this.hash;
    a[0] = ACK_MAGIC;
    a[1] = h & 0xff;
    a[2] = (h >>> 8) & 0xff;
    a[3] = (h >>> 16) & 0xff;
    a[4] = h >>> 24;
    const s = this.ses;
    a[5] = s & 0xff;
    a[6] = (s >>> 8) & 0xff;
    a[7] = (s >>> 16) & 0xff;
    a[8] = s >>> 24;
    for (let i = 9; i < n - 1; i++) {
      a[i] = (v % 128) | 0x80;
      v = Math.floor(v / 128);
    }
    a[n - 1] = v;
    return a;
  }

  /**
   * Apply one packet. Old and duplicate packets, and packets whose baseline this
   * client no longer has, are ignored (see `ignored`). Throws only DecodeError,
   * and then changes nothing.
   */
  receive(bytes: Uint8Array): ReceiveResult {
    const h = this.hdr;
    const pos = fastHeader(bytes, this.hash, this.ses, h);
    // (another session, errors: the checked way, which knows where each varint starts)
    if (pos < 0) return this.receiveChecked(bytes);
    const tick = h[0]!;
    const ago = h[1]!;
    if (ago > tick || tick === 0) return this.receiveChecked(bytes);
    const base = ago === 0 ? null : tick - ago;
    if (tick <= this.latest) return ignoredResult(tick, base, 'old');
    if (base !== null && !this.hasTick(base)) return ignoredResult(tick, base, 'missing-baseline');
    const deferred = h[2]!;
    const count = h[3]!;
    const end = bytes.length;
    if (count > (end - pos) * 4) throw new DecodeError(pos, 'count', `at most ${(end - pos) * 4} records in ${end - pos} bytes`, String(count));
    const parsed = this.parse(this.bits.reset(bytes, pos, end), this.start(tick, base, deferred), count);
    return this.commit(parsed);
  }

  /** `receive` through a ByteReader: the unusual headers (errors, truncation, long varints), and bundles. */
  private receiveChecked(bytes: Uint8Array): ReceiveResult {
    if (bytes.length > 0 && bytes[0] === BUNDLE_MAGIC) return this.receiveBundle(bytes);
    const r = new ByteReader(bytes);
    const magic = r.u8('magic');
    if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
    const hash = r.u32le('schemaHash');
    if (hash !== this.hash) throw new DecodeError(1, 'schemaHash', `schema hash ${hex32(this.hash)} (the server has another schema)`, hex32(hash));
    const session = r.u32le('session');
    if (session === 0) throw new DecodeError(5, 'session', 'a session other than 0', '0');
    const tick = r.vu32('tick');
    const agoAt = r.pos;
    const ago = r.vu32('baseAgo');
    if (ago > tick) throw new DecodeError(agoAt, 'baseAgo', `at most the tick (${tick})`, String(ago));
    const base = ago === 0 ? null : tick - ago;
    if (tick === 0) throw new DecodeError(9, 'tick', 'a tick of at least 1', '0');
    // another server's packet (a restart: its ticks are not this mirror's): a full state starts the mirror again, from
    // nothing; anything else names a baseline this client never had from it. A session left before is the past.
    const other = this.ses !== 0 && session !== this.ses;
    if (other) {
      if (this.left.includes(session)) return ignoredResult(tick, base, 'old');
      if (base !== null || this.holding) return ignoredResult(tick, base, 'missing-baseline');
    } else {
      if (tick <= this.latest) return ignoredResult(tick, base, 'old');
      if (base !== null && !this.hasTick(base)) return ignoredResult(tick, base, 'missing-baseline');
    }
    const deferred = r.vu32('deferred');
    const count = r.vu32('count');
    // each record takes at least 2 bits
    if (count > (r.end - r.pos) * 4) throw new DecodeError(r.pos, 'count', `at most ${(r.end - r.pos) * 4} records in ${r.end - r.pos} bytes`, String(count));
    const parsed = this.parse(this.bits.reset(bytes, r.pos, r.end), this.start(tick, base, deferred), count);
    if (other) this.restart(session, parsed);
    else if (this.ses === 0) this.ses = session;
    return this.commit(parsed);
  }

  /**
   * Before a full state of another session is committed (parsed: it is good): the mirror's history goes (its ticks
   * are another server's), and every entity the mirror holds is renewed (despawned, and spawned again if the full
   * state has its id), so that nothing of the old server's survives as the new one's.
   */
  private restart(session: number, p: Parsed): void {
    this.left.push(this.ses);
    if (this.left.length > 4) this.left.shift();
    this.ses = session;
    for (let i = 0; i < p.n; i++) if (p.kinds[i] === REPLACE && this.view.has(p.ids[i]!)) p.kinds[i] = RENEW;
    for (const log of this.logs) this.freeLogs.push(log.reset(0));
    this.logs.length = 0;
    this.latest = 0;
    this.floor = 0;
  }

  /**
   * Apply a bundle: its state packets in order, as one. Parts not newer than
   * the mirror are skipped (the client has their ticks), the others applied as
   * `receive` would; a DecodeError in any part undoes the parts applied before
   * it, so the mirror is left as it was. The result is the bundle's effect on
   * the mirror (ignored only when no part was applied). `onPart` (tools) is
   * called before each part is applied, with the part and its offset; what it
   * throws aborts the bundle the same way.
   */
  receiveBundle(bytes: Uint8Array, onPart?: (part: Uint8Array, offset: number, index: number) => void): ReceiveResult {
    const parts = bundleParts(bytes);
    return this.receiveParts((i) => parts[i], onPart);
  }

  /**
   * @internal Apply the parts of a bundle as `receiveBundle` does, each asked
   * for (with its offset in the bundle) just before it is applied, until
   * `next` gives none (tools that make a bundle's parts one by one against the
   * state before each); `onPart` as for `receiveBundle`.
   */
  receiveParts(next: (index: number) => [number, Uint8Array] | undefined, onPart?: (part: Uint8Array, offset: number, index: number) => void): ReceiveResult {
    const latest = this.latest;
    const floor = this.floor;
    const ses = this.ses;
    const kept = this.logs.length;
    // the ids the bundle touched, ascending, each with the entity it had before the bundle (null: none): each part's
    // log (in id order) becomes a run as it is applied, an id's first part telling what it had before. Runs are merged
    // as on a stack (a run with the one below it while that one is at most twice as long), so that a large part
    // followed by many small ones costs a merge per doubling, not one of the whole list per part
    const runs: Run[] = [];
    const applied: ReceiveResult[] = [];
    let ignored: ReceiveResult | undefined;
    let bundleBase: number | null = null;
    let prevTick = 0;
    this.holding = true;
    let i = 0;
    let at = 0;
    try {
      for (; ; i++) {
        const p = next(i);
        if (p === undefined) break;
        at = p[0];
        const part = p[1];
        onPart?.(part, at, i);
        if (part[0] !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${part[0]?.toString(16)}`);
        const res = this.receive(part);
        // each part after the first is of the tick after the part before, against that tick (what a server sends:
        // anything else could move the history floor, below, past the newest tick applied, and leave the client no
        // baseline the server could send against)
        if (i > 0) {
          if (res.tick !== prevTick + 1) throw new DecodeError(9, 'tick', `the tick after the part before (${prevTick + 1})`, String(res.tick));
          if (res.baseTick !== prevTick)
            throw new DecodeError(
              baseAgoAt(part),
              'baseAgo',
              'a part against the tick before it (baseAgo 1)',
              String(res.baseTick === null ? 0 : res.tick - res.baseTick),
            );
        }
        prevTick = res.tick;
        // the bundle's baseline is its first part's: the server may send against it again (the baselines of later
        // parts are no floor for the history)
        if (i === 0) bundleBase = res.baseTick;
        this.floor = floor;
        if (res.ignored !== undefined) {
          ignored = res;
          continue;
        }
        applied.push(res);
        const log = this.logs[this.logs.length - 1]!;
        if (log.n === 0) continue;
        let run: Run = { ids: new Array<number>(log.n), before: new Array<ReplicatedEntity | null>(log.n) };
        for (let k = 0; k < log.n; k++) {
          const id = log.ids[k]!;
          const b = log.before[k];
          run.ids[k] = id;
          // (no entry: updated in place, the entity it had is the one it has now)
          run.before[k] = b !== undefined ? b : this.view.get(id)!;
        }
        while (runs.length > 0 && runs[runs.length - 1]!.ids.length <= 2 * run.ids.length) run = mergeRuns(runs.pop()!, run);
        runs.push(run);
      }
    } catch (e) {
      // undo the parts applied, newest first
      while (this.logs.length > kept) {
        const log = this.logs.pop()!;
        this.undoLog(log);
        this.freeLogs.push(log.reset(0));
      }
      this.latest = latest;
      this.floor = floor;
      // (the first part applied may have set the session followed: a bundle never restarts it, see receiveChecked)
      this.ses = ses;
      this.holding = false;
      const err = rethrowAt(e, `parts[${i}]`);
      err.offset += at;
      err.message = err.describe();
      throw err;
    }
    this.holding = false;
    let all: Run = runs.pop() ?? { ids: [], before: [] };
    while (runs.length > 0) all = mergeRuns(runs.pop()!, all);
    const touched = all.ids;
    const before = all.before;
    const nt = touched.length;
    // (a bundle of which nothing applied moves nothing, as an ignored packet)
    if (applied.length > 0 && bundleBase !== null && bundleBase > this.floor) this.floor = bundleBase;
    this.dropOld();
    if (i === 0) throw new DecodeError(at, 'parts', 'at least one part', 'none');
    if (applied.length === 0) return ignored!;
    const first = applied[0]!;
    const last = applied[applied.length - 1]!;
    const res: ReceiveResult = { tick: last.tick, baseTick: first.baseTick, spawned: [], changed: new ChangedMap(), despawned: [], deferred: last.deferred };
    const changed = res.changed as ChangedMap;
    // each part's changed read with a cursor (the ids come in ascending order); with many parts, each part's entries
    // found by search instead (a pass over every id per part would cost ids × parts)
    const many = applied.length > MANY_PARTS;
    const cursors = many ? [] : applied.map(() => [0]);
    const namesAt: (readonly string[] | undefined)[] = many ? new Array(nt) : [];
    const mixedAt = many ? new Uint8Array(nt) : undefined;
    if (many)
      for (const r of applied)
        for (const [id, n] of r.changed) {
          const t = searchSorted(touched, nt, id);
          if (t < 0) continue;
          const m = namesAt[t];
          if (m === undefined) namesAt[t] = n;
          else if (m !== n) mixedAt![t] = 1;
        }
    for (let t = 0; t < nt; t++) {
      const id = touched[t]!;
      const a = before[t] ?? null;
      const b = this.view.get(id) ?? null;
      if (a !== b) {
        if (a !== null) res.despawned.push(id);
        if (b !== null) res.spawned.push(id);
        continue;
      }
      if (b === null) continue;
      // the same entity: the fields any part changed, in field order
      let names: readonly string[] | undefined;
      let mixed = false;
      if (many) {
        names = namesAt[t];
        mixed = mixedAt![t] === 1;
      } else
        for (let q = 0; q < applied.length; q++) {
          const n = (applied[q]!.changed as ChangedMap).getFrom(id, cursors[q]!);
          if (n === undefined) continue;
          if (names === undefined) names = n;
          else if (n !== names) mixed = true;
        }
      if (names === undefined) continue;
      if (mixed) {
        const all = new Set<string>();
        for (const r of applied) for (const n of r.changed.get(id) ?? []) all.add(n);
        names = b.def.list.filter((f) => all.has(f.name)).map((f) => f.name);
      }
      changed.set(id, names);
    }
    return res;
  }

  /** Undo everything an applied tick's log records, on the mirror. */
  private undoLog(log: TickLog): void {
    for (let k = log.n - 1; k >= 0; k--) {
      const id = log.ids[k]!;
      const b = log.before[k];
      if (b !== undefined) {
        if (b === null) this.view.delete(id);
        else this.view.set(id, b);
        continue;
      }
      const e = this.view.get(id)!;
      log.undo(k, e.raw as unknown[]);
      if (log.ats[k]! < 0) e.refreshAt(e.def.list.map((_, f) => f));
      else e.refresh(log.masks[k]!);
    }
  }

  /** Whether tick `t` was applied and is still kept as a possible baseline (for tools that walk packets before applying them). */
  holds(t: number): boolean {
    return this.hasTick(t);
  }

  /** Whether tick `t` was applied and is still kept as a possible baseline. */
  private hasTick(t: number): boolean {
    const logs = this.logs;
    for (let i = logs.length - 1; i >= 0; i--) {
      const k = logs[i]!.tick;
      if (k === t) return true;
      if (k < t) return false;
    }
    return false;
  }

  /**
   * What this client held for entity `id` at the applied tick `base` (null: nothing,
   * or `base` is null, i.e. a full state). Valid for `base` from the oldest
   * baseline still kept up to the newest applied tick; used by tools that walk
   * a packet's records against its baseline before applying it. Values that
   * differ from the mirror's come as an entity object of their own.
   */
  heldAt(id: number, base: number | null): ReplicatedEntity | null {
    if (base === null) return null;
    let e = this.view.get(id) ?? null;
    // undo, newest first, what the ticks after `base` did to this id
    let raw: unknown[] | null = null;
    const logs = this.logs;
    for (let i = logs.length - 1; i >= 0; i--) {
      const log = logs[i]!;
      if (log.tick <= base) break;
      const k = log.find(id);
      if (k < 0) continue;
      const b = log.before[k];
      if (b !== undefined) {
        e = b;
        raw = null;
        continue;
      }
      raw ??= e!.raw.slice();
      log.undo(k, raw);
    }
    if (e === null || raw === null) return e;
    return new ReplicatedEntity(e.type, e.def, raw, this.fb);
  }

  /**
   * `heldAt` for the records of one packet, in ascending order of id: the logs
   * after the baseline are `logs[from..]`, read with one forward cursor each
   * (`cursors`). Sets `heldRaw` to the raw held then, in `heldScratch` (the
   * caller copies it to keep it).
   */
  private heldFrom(id: number, from: number, cursors: number[]): ReplicatedEntity | null {
    let e = this.view.get(id) ?? null;
    let raw: unknown[] | null = null;
    const scratch = this.heldScratch;
    const logs = this.logs;
    for (let i = logs.length - 1; i >= from; i--) {
      const log = logs[i]!;
      const ids = log.ids;
      let c = cursors[i - from]!;
      while (c < log.n && ids[c]! < id) c++;
      cursors[i - from] = c;
      if (c === log.n || ids[c] !== id) continue;
      const b = log.before[c];
      if (b !== undefined) {
        e = b;
        raw = null;
        continue;
      }
      raw ??= copyRaw(scratch, e!.raw);
      log.undo(c, raw);
    }
    this.heldRaw = e === null ? null : (raw ?? copyRaw(scratch, e.raw));
    return e;
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
    if (p.replaced > 0) {
      p.defs.fill(null, 0, p.n);
      p.raws.fill(null, 0, p.n);
    }
    p.replaced = 0;
    p.n = 0;
  }

  private parse(inp: BitIn, p: Parsed, count: number): Parsed {
    let id = 0;
    const defs = this.defs;
    const base = p.base;
    // the usual case: the baseline is what the mirror shows now
    const current = base !== null && base === this.latest;
    const view = this.view;
    // against an older baseline: the logs after it, read with forward cursors (record ids ascend)
    let from = this.logs.length;
    const cursors = this.cursors;
    if (base !== null && !current) {
      while (from > 0 && this.logs[from - 1]!.tick > base) from--;
      cursors.length = this.logs.length - from;
      cursors.fill(0);
    }
    // updates are applied as they are read, into this tick's log and result: on the usual path against the mirror
    // itself, against an older baseline once the update is read over what the mirror held then (see below)
    const log = base !== null ? (this.freeLogs.pop() ?? new TickLog()).reset(p.tick) : null;
    // (changed: on the usual path room for every record at once, up to a bound whatever the count says)
    const res = base !== null ? newResult(p, current ? Math.min(count, 4096) : 0) : null;
    p.log = log;
    p.res = res;
    // (in runs only for a large mirror: for a small one, whose lines stay in cache, the runs' extra passes cost more
    // than they save)
    const runs = current && view.size >= RUN_MIRROR;
    for (let i = 0; i < count; i++) {
      try {
        if (runs) {
          // the usual records (updates of fixed-width fields) in runs: read first, applied once their lines are loaded
          const n = this.updateRun(inp, id, count - i, log!, res!);
          if (n > 0) {
            id = this.runLast;
            i += n;
            if (i === count) break;
          }
        }
        id += readGamma(inp, 'id');
        if (id > 0xffffffff) inp.fail('id', 'an id below 2^32', String(id));
        const held = base === null ? null : current ? ((id < BY_ID ? this.byId[id] : view.get(id)) ?? null) : this.heldFrom(id, from, cursors);
        const k = p.n;
        if (inp.bit('op') === 0) {
          if (held === null) inp.fail('op', `an entity held at the baseline for an update (id ${id})`, 'none');
          const def = held.def;
          if (current && def.list.length <= 32) {
            // the usual case: applied in place at once, the old values logged (undone if a later record is bad)
            const at = log!.nv;
            const m = readBodyApply(inp, def, held.raw as unknown[], log!.vals, at);
            if (m !== 0) {
              // the number of set bits of m (the old values logged)
              let c = m - ((m >>> 1) & 0x55555555);
              c = (c & 0x33333333) + ((c >>> 2) & 0x33333333);
              log!.nv = at + (Math.imul((c + (c >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
              log!.add(id, undefined, m, at);
              // ids ascend within a packet, and these are the result's first entries
              res!.changed.append(id, def === this.namesDef && m === this.namesMask ? this.namesList : this.namesOf(def, m));
              held.refresh(m);
            }
            continue;
          } else {
            // the baseline's raw, read over in place: a fresh copy, or against an older baseline heldFrom's scratch
            // (copied below if kept)
            const raw = current ? held.raw.slice() : this.heldRaw!;
            this.heldRaw = null;
            readBodyInto(inp, def, raw, raw);
            // against an older baseline, over the entity the mirror shows now (its type unchanged): applied now, while
            // its lines are in cache, as commit would (inPlace: only the fields that differ, logged); kept in the
            // packet's ids, which tell commit what goes back to the baseline
            if (!current && def.list.length <= 32) {
              const cur = (id < BY_ID ? this.byId[id] : view.get(id)) ?? null;
              if (cur !== null && cur.def === def) {
                this.inPlace(id, cur, raw, res!, log!);
                p.kinds[k] = APPLIED;
                p.ids[k] = id;
                p.n = k + 1;
                continue;
              }
            }
            p.kinds[k] = REPLACE;
            p.replaced++;
            p.defs[k] = def;
            p.raws[k] = current ? raw : raw.slice();
          }
        } else if (inp.bit('op') === 0) {
          // (over an entity held at the baseline: its id was despawned and spawned again since, and the new entity
          // replaces it)
          this.heldRaw = null;
          const type = inp.read(this.typeBits, 'type');
          const def = defs[type];
          if (def === undefined) inp.fail('type', `a type index below ${defs.length}`, String(type));
          const raw = this.fresh[type]!.slice();
          readBodyInto(inp, def, def.defaults, raw);
          p.kinds[k] = held === null ? REPLACE : RENEW;
          p.replaced++;
          p.defs[k] = def;
          p.raws[k] = raw;
        } else {
          if (held === null) inp.fail('op', `an entity held at the baseline for a despawn (id ${id})`, 'none');
          this.heldRaw = null;
          p.kinds[k] = DESPAWN;
        }
        p.ids[k] = id;
        p.n = k + 1;
      } catch (e) {
        this.rollback(p);
        throw rethrowAt(e, `records[${i}]`, inp.offset);
      }
    }
    try {
      inp.expectPadding('end');
    } catch (e) {
      this.rollback(p);
      throw e;
    }
    if (current) res!.changed.trim();
    return p;
  }

  /**
   * The usual path's records from the reader's position on (at most `max`, after id `id`), as long as they are
   * updates of held entities (ids below BY_ID) whose fields are all of a fixed width (numbers and bools of at most 32
   * fields): read first, without touching the entities, then their entities, raw arrays and values objects loaded
   * for all of them together (so that the cache misses overlap, rather than come one after another record by record:
   * on a client that did other work between packets, about half its time), then applied as `parse` applies them.
   * Stops before the first other record, or one that does not read (the reader put back at its start: `parse` reads
   * it the usual way, and reports its error). Returns the number of records applied; `runLast` is the last id.
   */
  private updateRun(inp: BitIn, id: number, max: number, log: TickLog, res: Result): number {
    const byId = this.byId;
    const defById = this.defById;
    const es = this.runE;
    const ids = this.runId;
    const masks = this.runMask;
    let zz = this.runZz;
    if (max > RUN) max = RUN;
    let n = 0;
    let z = 0;
    let pos = inp.pos;
    let pDef: AnyEntityDef | undefined;
    let p!: Plan;
    try {
      while (n < max) {
        const next = id + readGamma(inp, 'id');
        if (next >= BY_ID) break;
        const e = byId[next];
        if (e === undefined || inp.bit('op') !== 0) break;
        const def = defById[next]!;
        if (def !== pDef) {
          pDef = def;
          p = planOf(def);
        }
        if (p.n > 32) break;
        const mask = inp.read(p.n, 'mask') | 0;
        if ((mask & p.other) !== 0) break;
        if (z + 32 > zz.length) {
          const b = new Uint32Array(2 * zz.length);
          b.set(zz);
          zz = this.runZz = b;
        }
        z = readDiffs(inp, p, mask, zz, z);
        es[n] = e;
        ids[n] = next;
        masks[n++] = mask;
        id = next;
        pos = inp.pos;
      }
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
    }
    inp.pos = pos;
    if (n === 0) return 0;
    this.runLast = id;
    this.applyRun(n, log, res);
    return n;
  }

  /** The second half of `updateRun`: its `n` updates read, applied. */
  private applyRun(n: number, log: TickLog, res: Result): void {
    const es = this.runE;
    const ids = this.runId;
    const masks = this.runMask;
    const zz = this.runZz;
    // load each entity (its raw array and values object), then their values (each loop's misses independent: a
    // loop more, for the raw arrays alone, measured no better)
    const raws = this.runRaw;
    const cs = this.runC;
    for (let k = 0; k < n; k++) {
      const e = es[k]!;
      raws[k] = e.raw as unknown[];
      cs[k] = e.cached as Record<string, unknown> | undefined;
    }
    let sink = 0;
    for (let k = 0; k < n; k++) {
      const m = masks[k]!;
      const r = raws[k]!;
      for (let x = m; x !== 0; x &= x - 1) sink += r[31 - Math.clz32(x & -x)] as number;
      const c = cs[k];
      if (c !== undefined) {
        const list = es[k]!.def.list;
        for (let x = m; x !== 0; x &= x - 1) {
          const j = 31 - Math.clz32(x & -x);
          sink += loadField(c, j, list[j]!.name);
        }
      }
    }
    runSink = sink;
    let z = 0;
    const vals = log.vals;
    let pDef: AnyEntityDef | undefined;
    let p!: Plan;
    for (let k = 0; k < n; k++) {
      const m = masks[k]!;
      const e = es[k]!;
      if (m === 0) continue;
      const def = e.def;
      if (def !== pDef) {
        pDef = def;
        p = planOf(def);
      }
      const at = log.nv;
      z = applyDiffs(p, m, raws[k]!, zz, z, vals, at);
      // (the bits of m, as parse counts them: core's popcount32 called here made S2's client replayed alone 17 % slower)
      let c = m - ((m >>> 1) & 0x55555555);
      c = (c & 0x33333333) + ((c >>> 2) & 0x33333333);
      log.nv = at + (Math.imul((c + (c >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24);
      const id = ids[k]!;
      log.add(id, undefined, m, at);
      res.changed.append(id, def === this.namesDef && m === this.namesMask ? this.namesList : this.namesOf(def, m));
      e.refresh(m);
    }
    es.fill(undefined, 0, n);
    raws.fill(undefined, 0, n);
    cs.fill(undefined, 0, n);
  }

  /** Undo the updates a bad packet applied before its error (newest first), values objects included. */
  private rollback(p: Parsed): void {
    const log = p.log;
    if (log === null) return;
    for (let k = log.n - 1; k >= 0; k--) {
      const e = this.view.get(log.ids[k]!)!;
      log.undo(k, e.raw as unknown[]);
      e.refresh(log.masks[k]!);
    }
    this.freeLogs.push(log.reset(0));
    p.log = null;
    p.res = null;
  }

  private commit(p: Parsed): Result {
    const t = p.tick;
    const base = p.base;
    const res = p.res ?? newResult(p);
    // the history floor after this packet: nothing older is needed again
    if (base !== null && base > this.floor) this.floor = base;
    const log = p.log ?? (this.freeLogs.pop() ?? new TickLog()).reset(t);
    p.log = null;
    p.res = null;
    const { ids, kinds, n } = p;
    // entities changed after the baseline and not in the packet go back to what the baseline had
    // (found before anything is applied: ids are in increasing order, so a binary search tells)
    let back: Map<number, ReplicatedEntity | null> | null = null;
    if (base === null) {
      for (const id of this.view.keys()) if (searchSorted(ids, n, id) < 0) (back ??= new Map()).set(id, null);
    } else if (base !== this.latest) {
      for (const l of this.logs) {
        if (l.tick <= base) continue;
        // both in ascending order of id
        let j = 0;
        for (let k = 0; k < l.n; k++) {
          const id = l.ids[k]!;
          while (j < n && ids[j]! < id) j++;
          if ((j === n || ids[j] !== id) && !back?.has(id)) (back ??= new Map()).set(id, this.heldAt(id, base));
        }
      }
    }
    for (let i = 0; i < n; i++) {
      const id = ids[i]!;
      const kind = kinds[i]!;
      if (kind === APPLIED) continue;
      if (kind === REPLACE) this.change(id, p.defs[i]!, p.raws[i]!, res, log);
      else if (kind === RENEW) this.change(id, p.defs[i]!, p.raws[i]!, res, log, true);
      else this.change(id, null, null, res, log);
    }
    if (back !== null) for (const [id, v] of back) this.change(id, v === null ? null : v.def, v === null ? null : v.raw.slice(), res, log);
    this.clear(p);
    log.sort();
    this.logs.push(log);
    this.latest = t;
    if (!this.holding) this.dropOld();
    return res;
  }

  /** Drop the logs below the history floor: no baseline is older (the floor's own tick stays, as a known baseline). */
  private dropOld(): void {
    const floor = Math.max(this.floor, this.latest - this.window);
    let drop = 0;
    while (drop < this.logs.length && this.logs[drop]!.tick < floor) drop++;
    for (; drop > 0; drop--) this.freeLogs.push(this.logs.shift()!.reset(0));
  }

  /**
   * Make `raw` of type `def` (null: nothing) what the client holds for `id`; `raw` is the client's to keep. `renew`:
   * a new entity, even over one of the same type (it is reported despawned and spawned).
   */
  private change(id: number, def: AnyEntityDef | null, raw: unknown[] | null, res: Result, log: TickLog, renew = false): void {
    const cur = this.view.get(id) ?? null;
    if (cur === null && raw === null) return;
    if (!renew && cur !== null && raw !== null && cur.def === def) {
      this.inPlace(id, cur, raw, res, log);
      return;
    }
    log.add(id, cur, 0, 0);
    if (cur !== null) {
      this.view.delete(id);
      res.despawned.push(id);
    }
    if (raw !== null) {
      const e = new ReplicatedEntity(def!.name, def!, raw, this.fb);
      this.view.set(id, e);
      res.spawned.push(id);
    }
  }

  /** Change entity `e` to the values of `raw` in place (nothing, if it has them: a delta against an older baseline may repeat them). */
  private inPlace(id: number, e: ReplicatedEntity, raw: readonly unknown[], res: Result, log: TickLog): void {
    const list = e.def.list;
    const cur = e.raw as unknown[];
    if (list.length <= 32) {
      let m = 0;
      for (let f = 0; f < list.length; f++) if (cur[f] !== raw[f] && !rawEq(list[f]!.f, cur[f], raw[f])) m |= 1 << f;
      if (m === 0) return;
      const at = log.nv;
      let q = at;
      for (let x = m; x !== 0; x &= x - 1) {
        const j = 31 - Math.clz32(x & -x);
        log.vals[q++] = cur[j];
        cur[j] = raw[j];
      }
      log.nv = q;
      log.add(id, undefined, m, at);
      res.changed.set(id, this.namesOf(e.def, m));
      e.refresh(m);
      return;
    }
    const idx: number[] = [];
    for (let f = 0; f < list.length; f++) if (cur[f] !== raw[f] && !rawEq(list[f]!.f, cur[f], raw[f])) idx.push(f);
    if (idx.length === 0) return;
    log.vals[log.nv] = cur.slice();
    log.add(id, undefined, 0, -(log.nv + 1));
    log.nv++;
    for (const f of idx) cur[f] = raw[f];
    res.changed.set(
      id,
      idx.map((f) => list[f]!.name),
    );
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

  /** Entries of history held (for tests of bounded memory): kept ticks and their undo entries. */
  historySize(): number {
    let n = this.logs.length;
    for (const l of this.logs) n += l.n;
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

/**
 * The header of a well-formed state packet of this schema and session without
 * a reader object: tick, baseAgo, deferred, count into `out`; returns the offset
 * of the records, or -1 for anything else (then the checked path reads it and
 * reports, and tells a new session).
 */
function fastHeader(b: Uint8Array, hash: number, session: number, out: number[]): number {
  const n = b.length;
  if (n < 13 || b[0] !== STATE_MAGIC || (b[1]! | (b[2]! << 8) | (b[3]! << 16) | (b[4]! << 24)) >>> 0 !== hash) return -1;
  // (session 0 is an error, which the checked path reports; a client that follows none yet passes 0)
  const s = (b[5]! | (b[6]! << 8) | (b[7]! << 16) | (b[8]! << 24)) >>> 0;
  if (s !== session || s === 0) return -1;
  let p = 9;
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

function newResult(p: Parsed, capacity = 0): Result {
  return { tick: p.tick, baseTick: p.base, spawned: [], changed: new ChangedMap(capacity), despawned: [], deferred: p.deferred };
}

function ignoredResult(tick: number, base: number | null, why: 'old' | 'missing-baseline'): ReceiveResult {
  return { tick, baseTick: base, spawned: [], changed: new ChangedMap(), despawned: [], deferred: 0, ignored: why };
}

/**
 * The parts of a bundle (each part framed as BUNDLE_MAGIC, a varint byte
 * length and a state packet; the first frame's magic is the bundle's): each
 * part's offset in `bytes` and its bytes. Checks the framing only (at least one
 * part, each frame's magic, lengths that fill the bundle exactly, each part
 * starting with the state-packet magic).
 */
export function bundleParts(bytes: Uint8Array): [number, Uint8Array][] {
  const r = new ByteReader(bytes);
  const magic = r.u8('magic');
  if (magic !== BUNDLE_MAGIC) throw new DecodeError(0, 'magic', `0x${BUNDLE_MAGIC.toString(16)} (bundle)`, `0x${magic.toString(16)}`);
  const parts: [number, Uint8Array][] = [];
  do {
    const i = parts.length;
    // (a frame after the first: the loop's condition left at least its magic byte)
    if (i > 0) {
      const at = r.pos;
      if (bytes[at] !== BUNDLE_MAGIC)
        throw new DecodeError(at, `parts[${i}].bundleMagic`, `0x${BUNDLE_MAGIC.toString(16)} (bundle part)`, `0x${bytes[at]!.toString(16)}`);
      r.skip(1);
    }
    const len = r.vu32(`parts[${i}].length`);
    const at = r.pos;
    if (len < 1 || len > r.end - at) throw new DecodeError(at, `parts[${i}].length`, `1 to ${r.end - at} bytes`, String(len));
    if (bytes[at] !== STATE_MAGIC)
      throw new DecodeError(at, `parts[${i}].magic`, `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${bytes[at]!.toString(16)}`);
    parts.push([at, bytes.subarray(at, at + len)]);
    r.skip(len);
  } while (r.pos < r.end);
  return parts;
}

/** Where a state packet's `baseAgo` starts (after its magic, hash, session and tick, however long the tick's varint is). */
function baseAgoAt(packet: Uint8Array): number {
  const r = new ByteReader(packet);
  r.skip(9);
  r.vu32('tick');
  return r.pos;
}

/** The header of a state packet, without decoding its records (for tools, relays and simulations). */
export function readPacketHeader(bytes: Uint8Array): {
  hash: number;
  session: number;
  tick: number;
  baseTick: number | null;
  deferred: number;
  count: number;
} {
  const r = new ByteReader(bytes);
  const magic = r.u8('magic');
  if (magic !== STATE_MAGIC) throw new DecodeError(0, 'magic', `0x${STATE_MAGIC.toString(16)} (state packet)`, `0x${magic.toString(16)}`);
  const hash = r.u32le('schemaHash');
  const session = r.u32le('session');
  const tick = r.vu32('tick');
  const agoAt = r.pos;
  const ago = r.vu32('baseAgo');
  if (ago > tick) throw new DecodeError(agoAt, 'baseAgo', `at most the tick (${tick})`, String(ago));
  return { hash, session, tick, baseTick: ago === 0 ? null : tick - ago, deferred: r.vu32('deferred'), count: r.vu32('count') };
}

/** Ids ascending, each with the entity it had before a bundle (null: none): see receiveParts. */
interface Run {
  ids: number[];
  before: (ReplicatedEntity | null)[];
}

/** Bundles of more parts than this find each part's changed ids by search (see receiveParts). */
const MANY_PARTS = 8;

/** The union of two runs of ids, ascending; an id in both keeps `older`'s entity (its first part's). */
function mergeRuns(older: Run, newer: Run): Run {
  const a = older.ids;
  const b = newer.ids;
  const ids: number[] = [];
  const before: (ReplicatedEntity | null)[] = [];
  let i = 0;
  let k = 0;
  while (i < a.length || k < b.length) {
    if (k === b.length || (i < a.length && a[i]! <= b[k]!)) {
      if (k < b.length && a[i] === b[k]) k++;
      ids.push(a[i]!);
      before.push(older.before[i++]!);
    } else {
      ids.push(b[k]!);
      before.push(newer.before[k++]!);
    }
  }
  return { ids, before };
}

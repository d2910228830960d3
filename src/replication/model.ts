/**
 * The server's data model: entities (working and published values, in place),
 * the history of published changes as undo rows (see History), client views
 * (nodes) and profiles. See server.ts.
 *
 * A *version* of an entity is named by the tick that published it: no object
 * is made per change. The published values of an older version are the
 * current published values with the entity's undo rows newer than it applied.
 */
import type { Plan } from './codec.js';
import type { AnyEntityDef } from './schema.js';

export type ClientKey = string | number;
export type OwnerTag = string | number;
export type InterestFn = (id: number, values: Record<string, unknown>) => boolean;

/** An encoded record body kept for a rarely used (owner-specific, or third and later) baseline. */
export interface Enc {
  a: Uint32Array;
  off: number;
  bits: number;
}

export const NO_ARENA = new Uint32Array(0);

/** Whether a field kind's raw form is a number (every kind but f64, string, bytes and array): kept in `Ent.nv`. */
export function isNumericKind(k: string): boolean {
  return k !== 'f64' && k !== 'string' && k !== 'bytes' && k !== 'array';
}

/** Where a definition's numeric fields live in `Ent.nv`: `col[i]` (-1: not numeric), `nn` of them. */
export interface NumLayout {
  readonly col: Int32Array;
  readonly nn: number;
}

export function numLayout(def: AnyEntityDef): NumLayout {
  const col = new Int32Array(def.list.length).fill(-1);
  let nn = 0;
  def.list.forEach((fi, i) => {
    if (isNumericKind(fi.kind)) col[i] = nn++;
  });
  return { col, nn };
}

/** A typed array a column is made of. */
export type ColumnArray = Float32Array | Uint8Array | Uint16Array | Uint32Array | Int8Array | Int16Array | Int32Array;

/** Field kinds that can be columns (see ReplicationServer.columns), with the typed array of each. */
export const COLUMN_KINDS: Readonly<Record<string, new (n: number) => ColumnArray>> = {
  f32: Float32Array,
  u8: Uint8Array,
  u16: Uint16Array,
  u32: Uint32Array,
  i8: Int8Array,
  i16: Int16Array,
  i32: Int32Array,
};

/**
 * A numeric field's working values as a typed array indexed by row (see
 * ReplicationServer.columns): what the user writes (`user`), the raw values
 * that gives (`raw`: `user` itself, or for f32 a Uint32Array of its bits),
 * and the raw value the change scan last saw per row (`seen`).
 */
export interface Column {
  readonly name: string;
  readonly kind: string;
  /** The field's index (its change-mask bit) and its numeric slot in a row. */
  readonly k: number;
  readonly c: number;
  user: ColumnArray;
  raw: Uint32Array | Exclude<ColumnArray, Float32Array>;
  seen: Uint32Array | Exclude<ColumnArray, Float32Array>;
  /** `raw` and `seen` as float64 words (`per` rows each): the change scan compares 8 bytes at a time. */
  raw64: Float64Array;
  seen64: Float64Array;
  per: number;
}

/**
 * One entity type's numeric values, in rows of one Float64Array (no object per
 * entity, and an entity's values and change flags on one or two cache lines):
 * a row is `[dmask, dirty, serial, working values (nn), published values (nn)]`
 * and an entity's `nb` is where its working values start, so its working
 * value of numeric column `c` is `v[nb + c]`, its published one `v[nb + nn + c]`,
 * its change mask `v[nb + DMASK]`, its dirty flag `v[nb + DIRTY]` and the
 * serial of the entity that owns the row `v[nb + OWNER]` (0: none, so that a
 * stale handle is told apart). A row is freed when its entity's despawn is
 * published (nothing reads a despawned entity's values after that) and reused.
 * With columns (`enableColumns`), the working values of the column fields are
 * also in typed arrays by row that the user writes, and tick() scans them for changes.
 */
export class Table {
  readonly stride: number;
  v: Float64Array;
  /** The entity of each row (undefined: free). */
  readonly ents: (Ent | undefined)[] = [];
  /** Rows ever used (rows `0 .. top - 1`). */
  top = 0;
  /** The column fields (null: columns not enabled), by field index in `colBy`, and the user's object of arrays by name. */
  cols: Column[] | null = null;
  colBy: (Column | undefined)[] = [];
  readonly user: Record<string, ColumnArray> = {};
  /** The change scan's field bits by row (zero between scans; see ReplicationServer.scanColumns). */
  scanMask = new Int32Array(0);
  /** The words of the type's longest update, when publish may write it straight into its encoding arena (0: too long, it may not). */
  encWords = 0;
  /**
   * Whether a change of fixed-width numeric fields alone may be published by
   * publishRun (at most 31 fields, none owner-only, `encWords` > 0); `plan`
   * is the type's coding plan (its `other` bits: the fields that are not).
   */
  fastPub = false;
  plan!: Plan;
  private readonly free: number[] = [];
  constructor(
    readonly def: AnyEntityDef,
    readonly col: Int32Array,
    readonly nn: number,
  ) {
    this.stride = ROW_META + 2 * nn;
    this.v = new Float64Array(this.stride * 64);
  }
  get capacity(): number {
    return this.v.length / this.stride;
  }
  /** A row for entity `e`: its `nb` (`e` writes its working values there, then calls `placed`). */
  alloc(e: Ent): number {
    let r = this.free.pop();
    if (r === undefined) {
      r = this.top++;
      if (r >= this.capacity) this.grow();
    }
    const nb = r * this.stride + ROW_META;
    const v = this.v;
    v.fill(0, nb - ROW_META, nb + 2 * this.nn);
    v[nb + OWNER] = e.serial;
    this.ents[r] = e;
    return nb;
  }
  /** The working values at `nb` were written (by a spawn or a relay): the columns take them. */
  placed(nb: number): void {
    const cols = this.cols;
    if (cols === null) return;
    const r = (nb - ROW_META) / this.stride;
    for (const cl of cols) cl.raw[r] = cl.seen[r] = this.v[nb + cl.c]!;
  }
  release(nb: number): void {
    this.v[nb + OWNER] = 0;
    this.v[nb + DIRTY] = 0;
    const r = (nb - ROW_META) / this.stride;
    this.ents[r] = undefined;
    this.free.push(r);
  }
  /** Rows in use (for tests of bounded memory). */
  get used(): number {
    return this.top - this.free.length;
  }
  /** Make the column fields (the numeric kinds of COLUMN_KINDS), with every row's working values. */
  enableColumns(): void {
    if (this.cols !== null) return;
    const cols: Column[] = [];
    for (const fi of this.def.list) {
      const A = COLUMN_KINDS[fi.kind];
      if (A === undefined) continue;
      const user = new A(0);
      const raw = user instanceof Float32Array ? new Uint32Array(0) : user;
      const z = new Float64Array(0);
      const cl: Column = {
        name: fi.name,
        kind: fi.kind,
        k: fi.index,
        c: this.col[fi.index]!,
        user,
        raw,
        seen: raw,
        raw64: z,
        seen64: z,
        per: 8 / user.BYTES_PER_ELEMENT,
      };
      cols.push(cl);
      this.colBy[fi.index] = cl;
    }
    this.cols = cols;
    this.sizeColumns();
    for (let r = 0; r < this.top; r++) if (this.ents[r] !== undefined) this.placed(r * this.stride + ROW_META);
  }
  private grow(): void {
    const b = new Float64Array(this.v.length * 2);
    b.set(this.v);
    this.v = b;
    if (this.cols !== null) this.sizeColumns();
  }
  /** Columns of the table's capacity, with their contents (the user's object gets the new arrays). */
  private sizeColumns(): void {
    const n = this.capacity;
    this.scanMask = new Int32Array(n);
    for (const cl of this.cols!) {
      const A = COLUMN_KINDS[cl.kind]!;
      const user = new A(n);
      user.set(cl.user as never);
      const raw = user instanceof Float32Array ? new Uint32Array(user.buffer) : user;
      const seen = new (raw.constructor as new (n: number) => typeof raw)(n);
      seen.set(cl.seen as never);
      cl.user = user;
      cl.raw = raw;
      cl.seen = seen;
      // (the capacity is a multiple of 8 rows: 64 doubled)
      cl.raw64 = new Float64Array(raw.buffer, 0, raw.byteLength / 8);
      cl.seen64 = new Float64Array(seen.buffer, 0, seen.byteLength / 8);
      this.user[cl.name] = user;
    }
  }
}

/** Row slots before an entity's `nb` (see Table). */
export const ROW_META = 3;
export const DMASK = -3;
export const DIRTY = -2;
export const OWNER = -1;

export class Ent {
  // Fields in the order of how hot they are (V8 lays them out in this order, each field 4 bytes after a 12-byte
  // header): the first 16 (64 bytes) are all that a one-pass publish (publishRun) and a packet's usual
  // record read and write, the next ones what tick() and publish read besides. Every field has an initializer of its
  // final kind (a field first defined as undefined and later given a number is no longer a small-integer field for V8).
  readonly id: number = 0;
  /** Unique per Ent object (ids can be reused after a despawn): tells records of one id apart in record lists. */
  readonly serial: number = (serials = (serials + 1) & 0x3fffffff || 1);
  despawnPending = false;
  spawnTick = -1;
  /** The tick of the newest published version (-1: not published yet). */
  pubTick = -1;
  /** Sequence number of this entity's newest undo row (-1: none). */
  undo = -1;
  /** The tick of the version before `pubTick` (-1: none): versionAt's usual answer without reading the history. */
  prevPub = -1;
  /**
   * Encodings into the version `cTick` (the newest published; reset when a
   * newer one is published): two (baseline version tick, encoding) slots for
   * clients without owner-specific fields, the creation, then a map by
   * `baseline tick * 4 + owner flags` (creation: baseline -1).
   */
  cTick = -2;
  c0From = -2;
  c0Off = 0;
  c0Bits = 0;
  c0A: Uint32Array = NO_ARENA;
  c1From = -2;
  ccBits = -1;
  cMore: Map<number, Enc> | undefined = undefined;
  pubOwner: OwnerTag | undefined = undefined;
  /** The numeric fields' raw values and change flags: a row of `tbl` (see Table) from `nb` on (-1: released, after the despawn). */
  nb = -1;
  readonly tbl: Table;
  readonly def: AnyEntityDef;
  /** Fields beyond the 32 of the change mask were set, or the owner changed: publish compares every field. */
  dirtyAll = false;
  owner: OwnerTag | undefined = undefined;
  /** The tick that published its despawn (-1: none yet; a small integer, not Infinity, so the field stays unboxed). */
  despawnTick = -1;
  readonly type: number = 0;
  /** Working values of the fields that are not numeric: `set()` writes here (raw form, see schema.ts; numeric fields' slots unused). */
  readonly work: unknown[] = EMPTY;
  /** Published values of the fields that are not numeric, as of tick `pubTick` (updated in place by `tick()`). */
  pub: unknown[] = EMPTY;
  mark = 0;
  c1A: Uint32Array = NO_ARENA;
  c1Off = 0;
  c1Bits = 0;
  ccA: Uint32Array = NO_ARENA;
  ccOff = 0;
  /** Interest: bit `slot & 31` of word `slot >> 5` is set when the profile of that slot sees this entity now. */
  vis: Uint32Array | null = null;
  /** The newest tick at which an interest profile's view of it toggled (-1: never): visible at a tick not below it is the bit in `vis`. */
  toggledAt = -1;
  /** User-facing published values for interest hooks, as of `valsTick`. */
  vals: Record<string, unknown> | undefined = undefined;
  valsTick = -2;
  /** `raw`: every field's working value (the numeric ones move to the row). */
  constructor(id: number, def: AnyEntityDef, type: number, raw: unknown[], owner: OwnerTag | undefined, tbl: Table) {
    this.id = id;
    this.def = def;
    this.tbl = tbl;
    const col = tbl.col;
    this.type = type;
    this.owner = owner;
    const nb = (this.nb = tbl.alloc(this));
    const v = tbl.v;
    for (let i = 0; i < col.length; i++) {
      const c = col[i]!;
      if (c >= 0) {
        v[nb + c] = raw[i] as number;
        raw[i] = 0;
      }
    }
    tbl.placed(nb);
    this.work = raw;
  }

  /** Where the type's numeric fields are in a row (see NumLayout), and how many: the table's (no field of its own). */
  get col(): Int32Array {
    return this.tbl.col;
  }
  get nn(): number {
    return this.tbl.nn;
  }
}

const EMPTY: unknown[] = [];
let serials = 0;

/**
 * Undo rows of published changes, oldest first, in two rings: per row its
 * tick, the tick of the version it replaced, the entity's previous row, the
 * mask of the fields it changed (-1: every field), and where its old values
 * start in the value ring (the old owner, then the old values of the changed
 * fields in field order). Rows are dropped from the oldest end once no
 * baseline can need them, so memory follows the changes inside the window.
 *
 * Rows and values are named by sequence numbers (row s is at `s & (cap - 1)`).
 * A query never reaches a dropped row: versions below the floor are never
 * asked for, and a walk stops at a row below `head` (an entity's `undo` may
 * name a dropped row; dropping rows reads no entity). The numbers stay small
 * integers: before they reach 2^30 they are lowered by a multiple of the
 * capacity (`rebase`). Dropped values are not
 * cleared: a slot's old value stays referenced until the ring comes round to
 * it, bounded by the ring's size.
 */
export class History {
  cap = 1024;
  tick = new Float64Array(this.cap);
  prevTick = new Float64Array(this.cap);
  prev = new Int32Array(this.cap);
  mask = new Int32Array(this.cap);
  vstart = new Int32Array(this.cap);
  /** Rows `head .. tail - 1` are live. */
  head = 0;
  tail = 0;
  vcap = 4096;
  vals: unknown[] = new Array(this.vcap).fill(undefined);
  /** The value ring's numeric values (a slot holds its value here or in `vals`, by the field's kind). */
  nvals = new Float64Array(this.vcap);
  vhead = 0;
  vtail = 0;

  /** Start a row for `e`'s change at `tick` (it becomes `e.undo`); push its values with `put` right after. */
  row(e: Ent, tick: number, mask: number): void {
    if (this.tail - this.head === this.cap) this.growRows();
    const s = this.tail++;
    const i = s & (this.cap - 1);
    this.tick[i] = tick;
    this.prevTick[i] = e.pubTick;
    this.prev[i] = e.undo;
    this.mask[i] = mask;
    this.vstart[i] = this.vtail;
    e.undo = s;
  }

  put(v: unknown): void {
    if (this.vtail - this.vhead === this.vcap) this.growVals();
    this.vals[this.vtail++ & (this.vcap - 1)] = v;
  }

  /** Make room for `rows` more rows and `k` more values (then written straight into the rings from `tail` / `vtail` on). */
  reserve(rows: number, k: number): void {
    while (this.tail - this.head + rows > this.cap) this.growRows();
    while (this.vtail - this.vhead + k > this.vcap) this.growVals();
  }

  putN(v: number): void {
    if (this.vtail - this.vhead === this.vcap) this.growVals();
    this.nvals[this.vtail++ & (this.vcap - 1)] = v;
  }

  /** Drop the rows of ticks up to `floor` (they are the oldest). */
  dropThrough(floor: number): void {
    let h = this.head;
    const m = this.cap - 1;
    while (h < this.tail && this.tick[h & m]! <= floor) h++;
    if (h === this.head) return;
    this.head = h;
    this.vhead = h < this.tail ? this.vstart[h & m]! : this.vtail;
  }

  /** Whether the sequence numbers should be lowered (see `rebase`). */
  get needsRebase(): boolean {
    return this.tail >= 0x40000000 || this.vtail >= 0x40000000;
  }

  /**
   * Lower the sequence numbers by a multiple of the capacities (so that
   * positions stay put): the live rows' links and value starts, and the
   * `undo` of `ents`, every entity a query can still ask about (the live
   * ones and those despawned within the window). A number below `head`
   * stays below it (all are lowered by the same amount).
   */
  rebase(ents: Iterable<Ent>): void {
    const d = this.head - (this.head & (this.cap - 1));
    const vd = this.vhead - (this.vhead & (this.vcap - 1));
    const m = this.cap - 1;
    for (const e of ents) if (e.undo >= 0) e.undo = Math.max(-1, e.undo - d);
    for (let s = this.head; s < this.tail; s++) {
      const i = s & m;
      this.prev[i] = Math.max(-1, this.prev[i]! - d);
      this.vstart[i] = this.vstart[i]! - vd;
    }
    this.head -= d;
    this.tail -= d;
    this.vhead -= vd;
    this.vtail -= vd;
  }

  private growRows(): void {
    const n = this.cap * 2;
    const om = this.cap - 1;
    const nm = n - 1;
    const move = <T extends Float64Array | Int32Array>(a: T, b: T): T => {
      for (let s = this.head; s < this.tail; s++) b[s & nm] = a[s & om]!;
      return b;
    };
    this.tick = move(this.tick, new Float64Array(n));
    this.prevTick = move(this.prevTick, new Float64Array(n));
    this.prev = move(this.prev, new Int32Array(n));
    this.mask = move(this.mask, new Int32Array(n));
    this.vstart = move(this.vstart, new Int32Array(n));
    this.cap = n;
  }

  private growVals(): void {
    const n = this.vcap * 2;
    const b: unknown[] = new Array(n).fill(undefined);
    const nb = new Float64Array(n);
    for (let v = this.vhead; v < this.vtail; v++) {
      b[v & (n - 1)] = this.vals[v & (this.vcap - 1)];
      nb[v & (n - 1)] = this.nvals[v & (this.vcap - 1)]!;
    }
    this.vals = b;
    this.nvals = nb;
    this.vcap = n;
  }
}

/** What a client holds after a packet. */
export interface Node {
  tick: number;
  /** Entities left out: the tick of the version the client still holds for them (-1 = nothing). */
  over: Map<Ent, number> | null;
  /** The oldest version tick in `over` (the history must reach back to it while this node can be a baseline). */
  minHeld: number;
}

export interface Built {
  node: Node;
  packet: Uint8Array;
}

/**
 * A usual packet kept as a part of bundles: its tick, the packet (made framed as a bundle part, see
 * ReplicationServer.partBytes), and its records' ids (ascending, the first `n`).
 */
export interface UsualPart extends TickIds {
  built: Built;
}

/** A tick's record ids (ascending, the first `n`) and, made on first use, the same as a bit set. */
export interface TickIds {
  tick: number;
  ids: Uint32Array;
  n: number;
  /** The ids as a bit set, made on first use (see ReplicationServer.partBits): for tick `bitsTick`, words from `lo`. */
  bits: Int32Array;
  lo: number;
  nw: number;
  bitsTick: number;
}

export class Profile {
  /** Interest toggles by entity (ticks; visible when an odd number are <= t). */
  readonly toggles = new Map<Ent, number[]>();
  readonly visible = new Set<Ent>();
  /** This profile's bit in `Ent.vis` (interest profiles only). */
  slot = -1;
  /** Re-evaluate interest for every entity each tick (else only for changed entities and after a refresh). */
  everyTick = true;
  readonly log = new Map<number, Ent[]>();
  readonly acc = new Map<Ent, number>();
  refresh = true;
  built = new Map<unknown, Built>();
  builtTick = -1;
  /** Record lists of this tick's packets by baseline tick (no interest, nothing left out at the baseline), and last tick's. */
  recs = new Map<number, RecList>();
  prevRecs = new Map<number, RecList>();
  /**
   * The usual packets of the last ticks (against the tick before, nothing left
   * out at either), by tick modulo their number (`window`): the parts of bundles.
   */
  readonly usual: UsualPart[] = [];
  /** This tick's bundles by baseline tick (null: none can be made). */
  readonly bundles = new Map<number, Built | null>();
  /** Where this profile's usual packets are made, framed as bundle parts one after another (see partBytes). */
  partSlab = new Uint8Array(0);
  partPos = 0;
  /**
   * This tick's packet against the tick before, with nothing left out at that
   * tick (`built`'s entry of that tick), once a client's packetFor made it:
   * `usualTick` is the tick (-1: none yet).
   */
  usualTick = -1;
  usualBuilt: Built | null = null;
  constructor(
    readonly interest: InterestFn | undefined,
    readonly owner: OwnerTag | undefined,
  ) {}
}

/**
 * Every client's sent packets that can still become its baseline (see Sent),
 * in one ring of `window` slots by tick (slot `tick % window`), each slot a
 * row of `cap` clients: the clients' entries for one tick are side by side
 * (an ack or a packet of every client reads a few cache lines, not a few
 * objects per client).
 */
export class SentStore {
  /** Clients per slot (the row length). */
  cap = 64;
  ticks: Float64Array;
  built: (Built | undefined)[];
  private readonly free: number[] = [];
  private next = 0;
  constructor(readonly window: number) {
    this.ticks = new Float64Array(window * this.cap).fill(-1);
    this.built = new Array<Built | undefined>(window * this.cap).fill(undefined);
  }
  /** A client's column (its entries empty). */
  add(): number {
    const ix = this.free.pop() ?? this.next++;
    if (ix >= this.cap) this.grow();
    this.clear(ix);
    return ix;
  }
  /** Give a removed client's column back (its entries dropped). */
  remove(ix: number): void {
    this.clear(ix);
    this.free.push(ix);
  }
  private clear(ix: number): void {
    for (let k = 0; k < this.window; k++) {
      this.ticks[k * this.cap + ix] = -1;
      this.built[k * this.cap + ix] = undefined;
    }
  }
  private grow(): void {
    const cap = this.cap * 2;
    const ticks = new Float64Array(this.window * cap).fill(-1);
    const built = new Array<Built | undefined>(this.window * cap).fill(undefined);
    for (let k = 0; k < this.window; k++) {
      for (let i = 0; i < this.cap; i++) {
        ticks[k * cap + i] = this.ticks[k * this.cap + i]!;
        built[k * cap + i] = this.built[k * this.cap + i];
      }
    }
    this.ticks = ticks;
    this.built = built;
    this.cap = cap;
  }
}

/**
 * The packets sent to a client that can still become its baseline, by tick:
 * its column `ix` of a SentStore, so a tick leaves it when the one `window`
 * later is sent. Ticks below `floor` are gone (acknowledged past), and so are
 * ticks at or below `now - window`.
 */
export class Sent {
  floor = 0;
  constructor(
    private readonly store: SentStore,
    readonly ix: number,
  ) {}
  get(tick: number, now: number): Built | undefined {
    const s = this.store;
    if (tick < this.floor || tick <= now - s.window) return undefined;
    const i = (tick % s.window) * s.cap + this.ix;
    return s.ticks[i] === tick ? s.built[i] : undefined;
  }
  set(tick: number, b: Built): void {
    const s = this.store;
    const i = (tick % s.window) * s.cap + this.ix;
    s.ticks[i] = tick;
    s.built[i] = b;
  }
  /** The live entries at tick `now`, oldest first. */
  live(now: number): Built[] {
    const out: Built[] = [];
    for (let k = Math.max(this.floor, now - this.store.window + 1); k <= now; k++) {
      const b = this.get(k, now);
      if (b !== undefined) out.push(b);
    }
    return out;
  }
  /** The oldest live tick at `now` (Infinity: none). */
  oldest(now: number): number {
    for (let k = Math.max(this.floor, now - this.store.window + 1); k <= now; k++) if (this.get(k, now) !== undefined) return k;
    return Infinity;
  }
}

/** A client: its view's profile, its sent packets (it is their Sent: one object per client), its newest ack and last node. */
export class ClientState extends Sent {
  acked = -1;
  /** The newest packet made for this client (null: none; its node's tick is the tick it was made at). */
  lastBuilt: Built | null = null;
  /** That packet's node (reliable delivery's baseline). */
  get last(): Node | null {
    return this.lastBuilt === null ? null : this.lastBuilt.node;
  }
  constructor(
    readonly profile: Profile,
    store: SentStore,
    ix: number,
  ) {
    super(store, ix);
  }
}

/** One record (the priority accumulator's path): versions by tick (-1: none), the encoded body, the record's bits. */
export interface Rec {
  e: Ent;
  held: number;
  target: number;
  a: Uint32Array;
  off: number;
  ebits: number;
  bits: number;
}

/**
 * A packet's records against one baseline, in id order (see ReplicationServer.build); pooled. Every record has its
 * entity's `id`, `serial` and start bit `g`; the rest of a record (`e` .. `bits`) is filled only on the
 * record-by-record path (`record()`): a list handed over from a merge or the usual packet is only id, serial and
 * start bit beside its packet body.
 */
export interface RecList {
  /** The number of records: the first `n` of each array (longer arrays are not shortened, see ReplicationServer.dirtyN). */
  n: number;
  /** Entity ids (1 .. 2^32 - 1: unsigned, so that ids past 2^31 keep their order). */
  id: Uint32Array;
  /** The entity's `serial` (two entities can have one id across a despawn and a spawn). */
  serial: Int32Array;
  e: Ent[];
  held: number[];
  target: number[];
  a: Uint32Array[];
  off: number[];
  ebits: number[];
  bits: number[];
  /** Where each record starts (its id gap's first bit) in the packet body these records made, kept in `body`. */
  g: Int32Array;
  /** The packet body's bits (a zero word after them), `bodyBits` long. */
  body: Uint32Array;
  bodyBits: number;
}

export function newRecList(): RecList {
  const z = new Int32Array(0);
  return { n: 0, id: new Uint32Array(0), serial: z, e: [], held: [], target: [], a: [], off: [], ebits: [], bits: [], g: z, body: NO_ARENA, bodyBits: -1 };
}

/** Make room for `n` records in `l`'s typed arrays (kept contents). */
export function recCapacity(l: RecList, n: number): void {
  if (l.id.length >= n) return;
  const cap = Math.max(n, l.id.length * 2, 256);
  const grow = (a: Int32Array): Int32Array => {
    const b = new Int32Array(cap);
    b.set(a);
    return b;
  };
  const id = new Uint32Array(cap);
  id.set(l.id);
  l.id = id;
  l.serial = grow(l.serial);
  l.g = grow(l.g);
}

/** Append the entities of `from` not marked `mark` to `out` from index `n` (marking them); returns the new count. */
export function addMarked(out: Ent[], n: number, from: Iterable<Ent>, mark: number): number {
  for (const e of from) {
    if (e.mark !== mark) {
      e.mark = mark;
      out[n++] = e;
    }
  }
  return n;
}

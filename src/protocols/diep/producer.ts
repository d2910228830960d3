/**
 * Server side: a world of entities with change tracking, and a per-viewer builder
 * that turns it into one 0x00 packet per viewer per tick (reference §7).
 *
 * Changes are versioned instead of cleared: every stored change gets a number from
 * the world's counter, and a viewer remembers the counter at its last packet, so an
 * update carries exactly the fields (and array elements) changed since that viewer's
 * last packet, whether packets are built every tick or not.
 */
import { ByteWriter, EncodeError, excerpt, type Producer } from '../../core/index.js';
import { writeUpdate } from './codec.js';
import { isWritableString } from './primitives.js';
import { DIEP_DEFAULT_LIMITS } from './limits.js';
import * as schema from './tables/schema.js';
import type { FieldTable } from './tables/schema.js';

// Module-level bindings of imported constants: some loaders (tsx/esbuild) turn every
// access to an imported binding into a getter call, which costs more than the read.
const ENC_ENTID = schema.ENC_ENTID;
const ENC_F32 = schema.ENC_F32;
const ENC_STRING = schema.ENC_STRING;
const ENC_VI = schema.ENC_VI;
const ENC_VI64 = schema.ENC_VI64;
const ENC_VU = schema.ENC_VU;
import { FIELDS_6F59094D } from './tables/index.js';
import { F32Bits } from './types.js';
import type { Creation, Change, ElementChanges, EntityRef, Scalar, UpdatePacket, Upcreate } from './types.js';

/** An entity of the world. Read values freely; change them through `World.set` / `World.setElement`. */
export class WorldEntity {
  readonly id: number;
  readonly hash: number;
  readonly groups: readonly number[];
  /** Values by field index (arrays complete); undefined for fields of absent groups. */
  readonly values: (Scalar | Scalar[] | undefined)[];
  /** Version of the last change per field, and per element for array fields. */
  readonly fieldVersion: Float64Array;
  readonly elemVersion: (Float64Array | undefined)[];
  /** Fields changed at least once (a version above 0), rising: what a change scan visits. */
  readonly touched: number[] = [];
  /** Version of the last change of any field. */
  lastChange = 0;
  /** Version at which a re-send was requested (0: never). */
  resendVersion = 0;
  /** Set when removed from the world; viewers then send its deletion. */
  removed = false;
  readonly groupMask: Uint8Array;

  constructor(id: number, hash: number, groups: readonly number[], table: FieldTable) {
    this.id = id;
    this.hash = hash;
    this.groups = groups;
    this.groupMask = new Uint8Array(table.groupCount);
    for (const g of groups) this.groupMask[g] = 1;
    this.values = new Array(table.fieldCount);
    this.fieldVersion = new Float64Array(table.fieldCount);
    this.elemVersion = new Array(table.fieldCount);
    for (let f = 0; f < table.fieldCount; f++) {
      if (this.groupMask[table.fieldGroup[f]!] === 0) continue;
      const def = table.fields[f]!;
      const d = defaultOf(def.enc, def.default);
      if (def.length > 0) {
        this.values[f] = new Array<Scalar>(def.length).fill(d);
        this.elemVersion[f] = new Float64Array(def.length);
      } else this.values[f] = d;
    }
  }

  get ref(): EntityRef {
    return { hash: this.hash, id: this.id };
  }

  has(group: number): boolean {
    return this.groupMask[group] === 1;
  }

  /** Record that field `f` now has a version (call before setting it). */
  markTouched(f: number): void {
    if (this.fieldVersion[f] !== 0) return;
    const t = this.touched;
    let i = t.length;
    t.push(f);
    while (i > 0 && t[i - 1]! > f) {
      t[i] = t[i - 1]!;
      i--;
    }
    t[i] = f;
  }
}

function defaultOf(enc: number, d: unknown): Scalar {
  if (enc === ENC_STRING) return typeof d === 'string' ? d : '';
  if (enc === ENC_ENTID) return null;
  return typeof d === 'number' ? d : 0;
}

function sameScalar(a: Scalar | undefined, b: Scalar): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined) return false;
  if (typeof a === 'object' && typeof b === 'object') {
    if (a instanceof F32Bits || b instanceof F32Bits) return a instanceof F32Bits && b instanceof F32Bits && a.bits === b.bits;
    return a.id === b.id && a.hash === b.hash;
  }
  return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
}

/** The value a client decodes after `v` is written with encoding `enc` (truncation, float32 rounding). */
export function wireValue(enc: number, v: Scalar): Scalar {
  switch (enc) {
    case ENC_VU:
      return (v as number) >>> 0;
    case ENC_VI:
      return Math.trunc(v as number) | 0;
    case ENC_VI64:
      return (Math.trunc((v as number) * 64) | 0) / 64;
    case ENC_F32:
      return v instanceof F32Bits ? v : Math.fround(v as number);
    case ENC_ENTID:
      return v === null || (v as EntityRef).hash === 0 ? null : { hash: (v as EntityRef).hash, id: (v as EntityRef).id };
    default:
      return v;
  }
}

const u32 = (x: unknown): boolean => typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff;
const utf8 = new TextEncoder();
const MAX_STRING = DIEP_DEFAULT_LIMITS.maxStringLength;

/** Reject a value that the field's encoding cannot carry (what the packet's encoder would refuse). */
function checkValue(enc: number, v: unknown, key: string): void {
  let ok: boolean;
  if (enc === ENC_STRING)
    // at most 3 UTF-8 bytes per UTF-16 unit: only a long string is measured
    ok = typeof v === 'string' && isWritableString(v) && (v.length * 3 <= MAX_STRING || utf8.encode(v).length <= MAX_STRING);
  else if (enc === ENC_ENTID) ok = v === null || (typeof v === 'object' && u32((v as EntityRef).id) && u32((v as EntityRef).hash));
  else if (enc === ENC_F32) ok = typeof v === 'number' || v instanceof F32Bits;
  else ok = typeof v === 'number' && Number.isFinite(v);
  if (!ok) throw new EncodeError(key, `cannot hold ${excerpt(v)}`);
}

export interface WorldOptions {
  table?: FieldTable;
  /** Size of the id space (the server's entity table has 16384 slots). */
  maxEntities?: number;
}

/** The authoritative world: entities, ids, hashes, change versions. */
export class World {
  readonly table: FieldTable;
  /** The game's tick counter, written into each packet. */
  tick = 0;
  /** Change counter; bumped on every stored change. */
  version = 1;
  readonly entities = new Map<number, WorldEntity>();
  private readonly hashes: Uint8Array;
  private readonly maxEntities: number;

  constructor(opts: WorldOptions = {}) {
    this.table = opts.table ?? FIELDS_6F59094D;
    this.maxEntities = opts.maxEntities ?? 16384;
    this.hashes = new Uint8Array(this.maxEntities);
  }

  private groupIds(groups: readonly (number | string)[]): number[] {
    const ids = groups.map((g) => {
      const id = typeof g === 'number' ? g : this.table.groupByName.get(g);
      if (id === undefined || id < 0 || id >= this.table.groupCount) throw new EncodeError('groups', `unknown group ${excerpt(g)}`);
      return id;
    });
    return [...new Set(ids)].sort((a, b) => a - b);
  }

  private fieldIndex(key: string | number): number {
    const f = typeof key === 'number' ? key : this.table.byKey.get(key);
    if (f === undefined || f < 0 || f >= this.table.fieldCount) throw new EncodeError(String(key), 'unknown field');
    return f;
  }

  /**
   * Create an entity with the lowest free id; its hash counts the allocations of that id
   * (1..255; the server's 8-bit counter would wrap to 0, here it wraps to 1 so that no
   * entity is ever null). Fields start at the table's defaults, then `init` is applied.
   */
  create(groups: readonly (number | string)[], init: Record<string, Scalar | Scalar[]> = {}): WorldEntity {
    let id = 0;
    while (id < this.maxEntities && this.entities.has(id)) id++;
    if (id >= this.maxEntities) throw new EncodeError('', 'no free entity id');
    if (!Array.isArray(groups)) throw new EncodeError('groups', `expected an array of group ids or names, got ${excerpt(groups)}`);
    if (init === null || typeof init !== 'object') throw new EncodeError('init', `expected an object of field values, got ${excerpt(init)}`);
    const h = this.hashes[id]! >= 255 ? 1 : this.hashes[id]! + 1;
    const e = new WorldEntity(id, h, this.groupIds(groups), this.table);
    for (const [k, v] of Object.entries(init)) {
      const f = this.fieldIndex(k);
      if (Array.isArray(v)) v.forEach((x, i) => this.setElement(e, f, i, x));
      else this.set(e, f, v);
    }
    // (the id's allocation counted only once the entity is made: a refused create changes nothing)
    this.hashes[id] = h;
    e.lastChange = this.version;
    this.entities.set(id, e);
    return e;
  }

  /** Store a scalar value; a different value marks the field changed. */
  set(e: WorldEntity, key: string | number, v: Scalar): void {
    const f = this.fieldIndex(key);
    if (e.groupMask[this.table.fieldGroup[f]!] !== 1) throw new EncodeError(this.table.fields[f]!.key, 'field of a group the entity does not have');
    if (this.table.fieldLen[f] !== 0) throw new EncodeError(this.table.fields[f]!.key, 'array field: use setElement');
    checkValue(this.table.fieldEnc[f]!, v, this.table.fields[f]!.key);
    if (sameScalar(e.values[f] as Scalar | undefined, v)) return;
    e.values[f] = v;
    const ver = ++this.version;
    e.markTouched(f);
    e.fieldVersion[f] = ver;
    e.lastChange = ver;
  }

  /** Store one element of an array field. */
  setElement(e: WorldEntity, key: string | number, index: number, v: Scalar): void {
    const f = this.fieldIndex(key);
    if (e.groupMask[this.table.fieldGroup[f]!] !== 1) throw new EncodeError(this.table.fields[f]!.key, 'field of a group the entity does not have');
    const len = this.table.fieldLen[f]!;
    if (len === 0 || !Number.isInteger(index) || index < 0 || index >= len) throw new EncodeError(this.table.fields[f]!.key, `no element ${index}`);
    checkValue(this.table.fieldEnc[f]!, v, this.table.fields[f]!.key);
    const arr = e.values[f] as Scalar[];
    if (sameScalar(arr[index], v)) return;
    arr[index] = v;
    const ver = ++this.version;
    e.elemVersion[f]![index] = ver;
    e.markTouched(f);
    e.fieldVersion[f] = ver;
    e.lastChange = ver;
  }

  /**
   * Mark a field (or one element) changed without changing its value: the server sends a
   * field whenever its stored value was replaced, which can repeat the previous wire value
   * (positions and angles are quantised when written).
   */
  touch(e: WorldEntity, key: string | number, index?: number): void {
    const f = this.fieldIndex(key);
    if (e.groupMask[this.table.fieldGroup[f]!] !== 1) throw new EncodeError(this.table.fields[f]!.key, 'field of a group the entity does not have');
    const ver = ++this.version;
    if (this.table.fieldLen[f] !== 0) {
      const len = this.table.fieldLen[f]!;
      const ev = e.elemVersion[f]!;
      if (index === undefined) ev.fill(ver);
      else if (Number.isInteger(index) && index >= 0 && index < len) ev[index] = ver;
      else throw new EncodeError(this.table.fields[f]!.key, `no element ${index}`);
    }
    e.markTouched(f);
    e.fieldVersion[f] = ver;
    e.lastChange = ver;
  }

  get(e: WorldEntity, key: string | number): Scalar | Scalar[] | undefined {
    return e.values[this.fieldIndex(key)];
  }

  /** Remove an entity: its id is free at once; viewers that know it send its deletion. */
  remove(e: WorldEntity): void {
    if (e.removed) return;
    e.removed = true;
    if (this.entities.get(e.id) === e) this.entities.delete(e.id);
  }

  /** Ask every viewer that knows the entity to delete and create it again. */
  resend(e: WorldEntity): void {
    e.resendVersion = ++this.version;
  }

  resolve(ref: Scalar | Scalar[] | undefined): WorldEntity | undefined {
    if (ref === null || ref === undefined || typeof ref !== 'object' || Array.isArray(ref) || ref instanceof F32Bits) return undefined;
    const e = this.entities.get(ref.id);
    return e !== undefined && e.hash === ref.hash ? e : undefined;
  }
}

/** Arguments of the per-viewer colour hook. */
export interface ColorContext {
  world: World;
  viewer: ViewerProducer;
  entity: WorldEntity;
  /** The stored `style.color`. */
  color: number;
}

export interface ViewerOptions {
  /** Entities this viewer should see (default: the server's rule, §7.3). Only root world objects matter. */
  interest?: (world: World, viewer: ViewerProducer) => Iterable<WorldEntity>;
  /** The colour written for `style.color` (default: the server's Tank→EnemyTank rewrite, §5.6). */
  color?: (ctx: ColorContext) => number;
}

/** Builds one viewer's 0x00 packets (the family's `Producer`: `produce()` gives the next message). */
export class ViewerProducer implements Producer<[], Uint8Array> {
  readonly world: World;
  readonly camera: WorldEntity;
  /** Entities the client holds, in the order they were sent. */
  readonly known = new Set<WorldEntity>();
  /** World version at this viewer's last packet. */
  lastVersion = 0;
  private readonly interestFn: (world: World, viewer: ViewerProducer) => Iterable<WorldEntity>;
  private readonly colorFn: (ctx: ColorContext) => number;
  private readonly colorField: number;
  private readonly parentField: number;
  private readonly playerField: number;
  private readonly positionGroup: number;
  private readonly relationsGroup: number;
  private readonly cameraGroup: number;
  private readonly arenaGroup: number;

  constructor(world: World, camera: WorldEntity, opts: ViewerOptions = {}) {
    this.world = world;
    this.camera = camera;
    const t = world.table;
    this.colorField = t.byKey.get('style.color') ?? -1;
    this.parentField = t.byKey.get('relations.parent') ?? -1;
    this.playerField = t.byKey.get('camera.player') ?? -1;
    this.positionGroup = t.groupByName.get('position') ?? -1;
    this.relationsGroup = t.groupByName.get('relations') ?? -1;
    this.cameraGroup = t.groupByName.get('camera') ?? -1;
    this.arenaGroup = t.groupByName.get('arena') ?? -1;
    this.interestFn = opts.interest ?? serverInterest;
    this.colorFn = opts.color ?? serverColor;
  }

  /** A world object: an entity with a position (arena, cameras and teams are not). */
  isWorldObject(e: WorldEntity): boolean {
    return this.positionGroup >= 0 && e.has(this.positionGroup);
  }

  parentOf(e: WorldEntity): WorldEntity | undefined {
    if (this.parentField < 0 || !e.has(this.relationsGroup)) return undefined;
    return this.world.resolve(e.values[this.parentField]);
  }

  rootOf(e: WorldEntity): WorldEntity {
    let r = e;
    for (let i = 0; i < 64; i++) {
      const p = this.parentOf(r);
      if (p === undefined || p === r) break;
      r = p;
    }
    return r;
  }

  /** The viewer's player (`camera.player` resolved). */
  player(): WorldEntity | undefined {
    return this.playerField < 0 ? undefined : this.world.resolve(this.camera.values[this.playerField]);
  }

  /** Build this viewer's packet for the world's current tick. */
  build(): UpdatePacket {
    const world = this.world;
    const since = this.lastVersion;
    const interest = new Set<WorldEntity>();
    if (this.interestFn === serverInterest) {
      const list = serverInterestList(world, this);
      for (let i = 0; i < list.length; i++) if (!list[i]!.removed) interest.add(this.rootOf(list[i]!));
    } else for (const e of this.interestFn(world, this)) if (!e.removed) interest.add(this.rootOf(e));
    const children = new Map<WorldEntity, WorldEntity[]>();
    for (const e of world.entities.values()) {
      const p = this.parentOf(e);
      if (p !== undefined && p !== e) {
        const list = children.get(p);
        if (list === undefined) children.set(p, [e]);
        else list.push(e);
      }
    }
    const deletions: EntityRef[] = [];
    const updates: Upcreate[] = [];
    const creations: Upcreate[] = [];
    const undoDeleted = this.undoDeleted;
    undoDeleted.length = 0;
    this.undoAdded = 0;
    this.undoVersion = this.lastVersion;
    let place = 0;
    // deleting the entry being visited is safe in a Set iteration; entries are only deleted here
    for (const e of this.known) {
      const at = place++;
      if (e.removed) {
        deletions.push({ hash: e.hash, id: e.id });
        this.known.delete(e);
        undoDeleted.push(at, e);
      } else if (this.isWorldObject(e) && !interest.has(this.rootOf(e))) {
        deletions.push({ hash: e.hash, id: e.id });
        this.known.delete(e);
        undoDeleted.push(at, e);
      } else if (e.resendVersion > since) {
        deletions.push({ hash: e.hash, id: e.id });
        creations.push(this.creationOf(e));
      } else if (e.lastChange > since) {
        const u = this.changeOf(e, since);
        if (u.fields.length > 0) updates.push(u);
      }
    }
    const add = (e: WorldEntity): void => {
      if (e.removed || this.known.has(e)) return;
      this.known.add(e);
      this.undoAdded++;
      creations.push(this.creationOf(e));
    };
    if (this.known.size === 0) {
      for (const e of world.entities.values()) if (this.arenaGroup >= 0 && e.has(this.arenaGroup)) add(e);
      add(this.camera);
    }
    for (const e of world.entities.values()) {
      if (!this.isWorldObject(e) && !(this.cameraGroup >= 0 && e.has(this.cameraGroup))) add(e);
    }
    const addTree = (e: WorldEntity, depth: number): void => {
      add(e);
      if (depth > 64) return;
      for (const c of children.get(e) ?? []) addTree(c, depth + 1);
    };
    for (const e of interest) addTree(e, 0);
    this.lastVersion = world.version;
    return { type: 'Update', tick: world.tick, deletions, upcreates: [...updates, ...creations] };
  }

  /** Build and encode this viewer's packet for the world's current tick. */
  produce(): Uint8Array {
    return this.buildBytes();
  }

  /** Build and encode this viewer's packet (same as `produce`). */
  buildBytes(): Uint8Array {
    // one writer kept between packets (grown once to the size of the largest), reset on each
    const w = (this.writer ??= new ByteWriter(1024));
    w.reset();
    const p = this.build();
    try {
      writeUpdate(w, p, this.world.table);
    } catch (e) {
      // a refused packet is not sent: the viewer goes back to what its client holds
      this.undoBuild();
      throw e;
    }
    // (written: the entities it deleted are not kept for an undo until the next packet)
    this.undoDeleted.length = 0;
    return w.finish();
  }

  private writer: ByteWriter | undefined;

  /** What the last `build` changed: the entries it deleted from `known` (place, entity pairs), how many it added, the version before. */
  private readonly undoDeleted: (number | WorldEntity)[] = [];
  private undoAdded = 0;
  private undoVersion = 0;

  /** Put `known` (its order too) and `lastVersion` back as they were before the last `build`. */
  private undoBuild(): void {
    const kept = [...this.known];
    kept.length -= this.undoAdded;
    const deleted = this.undoDeleted;
    const before: WorldEntity[] = [];
    let d = 0;
    let k = 0;
    while (k < kept.length || d < deleted.length) {
      if (d < deleted.length && deleted[d] === before.length) {
        before.push(deleted[d + 1] as WorldEntity);
        d += 2;
      } else before.push(kept[k++]!);
    }
    this.known.clear();
    for (const e of before) this.known.add(e);
    this.lastVersion = this.undoVersion;
    deleted.length = 0;
    this.undoAdded = 0;
  }

  private colorFor(e: WorldEntity, v: Scalar): Scalar {
    return this.colorFn({ world: this.world, viewer: this, entity: e, color: v as number });
  }

  private creationOf(e: WorldEntity): Creation {
    const t = this.world.table;
    const values = e.values.map((v, f) => {
      if (v === undefined) return v;
      const enc = t.fieldEnc[f]!;
      if (Array.isArray(v)) return v.map((x) => wireValue(enc, x));
      return wireValue(enc, f === this.colorField ? this.colorFor(e, v) : v);
    });
    return { kind: 'creation', id: e.id, hash: e.hash, groups: e.groups.slice(), values };
  }

  private changeOf(e: WorldEntity, since: number): Change {
    const t = this.world.table;
    const fields: number[] = [];
    const values: (Scalar | ElementChanges)[] = [];
    // only fields changed at least once can be newer than `since` (>= 0)
    const touched = e.touched;
    for (let j = 0; j < touched.length; j++) {
      const f = touched[j]!;
      if (e.fieldVersion[f]! <= since) continue;
      fields.push(f);
      if (t.fieldLen[f] === 0) {
        const v = e.values[f] as Scalar;
        values.push(wireValue(t.fieldEnc[f]!, f === this.colorField ? this.colorFor(e, v) : v));
      } else {
        const ev = e.elemVersion[f]!;
        const arr = e.values[f] as Scalar[];
        const indices: number[] = [];
        const vals: Scalar[] = [];
        for (let k = 0; k < ev.length; k++) {
          if (ev[k]! > since) {
            indices.push(k);
            vals.push(t.fieldUpdateEnc[f] === ENC_VI && t.fieldEnc[f] === ENC_F32 ? truncScore(arr[k]!) : wireValue(t.fieldUpdateEnc[f]!, arr[k]!));
          }
        }
        values.push({ indices, values: vals });
      }
    }
    return { kind: 'update', id: e.id, hash: e.hash, fields, values };
  }
}

/** f32 array elements written as `vi` in updates (arena.scoreboardScores): truncated toward zero. */
function truncScore(v: Scalar): number {
  const n = v instanceof F32Bits ? NaN : (v as number);
  return Number.isFinite(n) ? Math.trunc(n) | 0 : 0;
}

function refOf(v: Scalar | Scalar[] | undefined): EntityRef | null {
  if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v) || v instanceof F32Bits) return null;
  return v.hash === 0 ? null : v;
}

function sameEntity(a: EntityRef | null, b: EntityRef | null): boolean {
  if (a === null || b === null) return a === b;
  return a.id === b.id && a.hash === b.hash;
}

/** The server's colour rule (§5.6): Tank (2) becomes EnemyTank (15) unless on the viewer's team. */
export function serverColor(ctx: ColorContext): number {
  if (ctx.color !== 2) return ctx.color;
  const t = ctx.world.table;
  const teamField = t.byKey.get('relations.team');
  const relations = t.groupByName.get('relations');
  if (teamField === undefined || relations === undefined || !ctx.entity.has(relations)) return 15;
  const team = refOf(ctx.entity.values[teamField]);
  const player = ctx.viewer.player();
  const playerRef = refOf(ctx.viewer.camera.values[t.byKey.get('camera.player') ?? -1]);
  if (playerRef === null) return team === null ? 2 : 15;
  const pTeam = player?.has(relations) ? refOf(player.values[teamField]) : null;
  return sameEntity(team, pTeam) ? 2 : 15;
}

/** The server's interest rule (§7.3): the camera's view rectangle, `showsOnMap` objects and the player. */
export function* serverInterest(world: World, viewer: ViewerProducer): Iterable<WorldEntity> {
  yield* serverInterestList(world, viewer);
}

/** `serverInterest` as an array (no generator: what `build` calls for the default rule). */
function serverInterestList(world: World, viewer: ViewerProducer): WorldEntity[] {
  const out: WorldEntity[] = [];
  const t = world.table;
  const k = (key: string): number => t.byKey.get(key) ?? -1;
  const cam = viewer.camera;
  const num = (e: WorldEntity, f: number): number => {
    const v = f < 0 ? undefined : e.values[f];
    return typeof v === 'number' ? v : 0;
  };
  const cx = num(cam, k('camera.cameraX'));
  const cy = num(cam, k('camera.cameraY'));
  const fov = num(cam, k('camera.FOV')) || 0.35;
  const hw = 1920 / fov / 1.5;
  const hh = 1080 / fov / 1.5;
  const fx = k('position.x');
  const fy = k('position.y');
  const fsize = k('physics.size');
  const fwidth = k('physics.width');
  const fsides = k('physics.sides');
  const fflags = k('physics.flags');
  const fop = k('style.opacity');
  const showsOnMap = t.flagBits['physics.flags']?.showsOnMap ?? 2;
  const player = viewer.player();
  for (const e of world.entities.values()) {
    if (!viewer.isWorldObject(e) || viewer.parentOf(e) !== undefined) continue;
    if (e === player) {
      out.push(e);
      continue;
    }
    if (fflags >= 0 && e.values[fflags] !== undefined && (num(e, fflags) & showsOnMap) !== 0) {
      out.push(e);
      continue;
    }
    if (fop >= 0 && e.values[fop] !== undefined && num(e, fop) === 0) continue;
    const size = num(e, fsize);
    const ex = num(e, fsides) === 2 ? size / 2 : size;
    const ey = num(e, fsides) === 2 ? num(e, fwidth) / 2 : size;
    const x = num(e, fx);
    const y = num(e, fy);
    if (x + ex >= cx - hw && x - ex <= cx + hw && y + ey >= cy - hh && y - ey <= cy + hh) out.push(e);
  }
  return out;
}

/**
 * Client side: a mirror of the world that applies 0x00 update packets (reference §6).
 *
 * Deletions are applied before upcreates; a creation replaces whatever had its id;
 * updates must name a present `<id,hash>` and fields of its groups; array updates
 * merge element by element. Inconsistencies are reported (collected in `issues`,
 * or handed to `onIssue`), never thrown away and never thrown.
 */
import type { FieldTable } from './tables/schema.js';
import { UpdateBuffer, decodeUpdateInto, type FlatDecodeOptions } from './update-read.js';
import { flattenUpdate } from './update-view.js';
import { FIELDS_6F59094D } from './tables/index.js';
import type { EntityRef, F32Bits, Scalar, UpdatePacket } from './types.js';
import { LimitError, type ClientMirror, type MirrorChanges, type MirroredEntity, type MirrorIssue } from '../../core/index.js';
import { decodeClientbound } from './clientbound.js';
import { f32ToJson } from './json.js';
import { ENC_F32 } from './tables/schema.js';
import { resolveDiepLimits, type DiepLimits } from './limits.js';

/** One entity in the store. */
export interface StoredEntity {
  id: number;
  hash: number;
  /** Group ids, ascending. */
  groups: number[];
  /** Values by field index; `undefined` for fields of absent groups; arrays are the store's own copies. */
  values: (Scalar | Scalar[] | undefined)[];
  /** Bit `g` set for each group id `g` below 31 (a fast membership test); -1 when a group id is 31 or more. */
  groupMask: number;
  /** What this entity counts toward `EntityStore.storeBytes` (see `diepMaxStoreBytes`). */
  bytes: number;
}

/** Bytes counted per entity (object, map entry), on top of 8 per field of the table (its `values`). */
const ENTITY_BYTES = 64;
/** Bytes counted per group of an entity (its `groups` entry), on top of its fields. */
const GROUP_BYTES = 8;
/** Bytes counted per scalar field and per array element (the slot, a boxed number, a reference or `F32Bits`). */
const SLOT_BYTES = 16;
/** Bytes counted per array field, on top of its elements. */
const ARRAY_BYTES = 16;

/** What a value holds beyond its slot: a string 2 bytes per UTF-16 code unit, anything else nothing. */
function heldBytes(v: unknown): number {
  return typeof v === 'string' ? 2 * v.length : 0;
}

/** Groups and membership mask: what `hasGroup` reads. */
type GroupSet = Pick<StoredEntity, 'groups' | 'groupMask'>;

function maskOf(groups: readonly number[]): number {
  let m = 0;
  for (const g of groups) {
    if (g > 30) return -1;
    m |= 1 << g;
  }
  return m;
}

/** JSON value of a stored field value (float32 in its JSON form). */
function valueJson(enc: number, v: Scalar | Scalar[]): unknown {
  const one = (x: Scalar): unknown => (enc === ENC_F32 || (x !== null && typeof x === 'object' && 'bits' in x) ? f32ToJson(x as number | F32Bits) : x);
  return Array.isArray(v) ? v.map(one) : one(v);
}

/** A readable kind from an entity's groups (as the inspector names them). */
export function entityType(e: StoredEntity, table: FieldTable = FIELDS_6F59094D): string {
  const has = (name: string): boolean => {
    const g = table.groupByName.get(name);
    return g !== undefined && e.groups.includes(g);
  };
  if (has('arena')) return 'Arena';
  if (has('camera')) return 'Camera';
  if (has('barrel')) return 'Barrel';
  if (has('score')) return 'Tank';
  if (has('name') && has('physics')) return 'Shape';
  if (has('team') && !has('position')) return 'Team';
  if (has('physics') && has('position') && has('health')) return 'Projectile';
  return e.groups.map((g) => table.groups[g]?.name ?? String(g)).join('+') || 'Entity';
}

function hasGroup(e: GroupSet, g: number): boolean {
  if (e.groupMask >= 0) return g <= 30 && (e.groupMask & (1 << g)) !== 0;
  return e.groups.includes(g);
}

export type StoreIssueKind =
  | 'tickGap'
  | 'deleteMissing'
  | 'deleteHashMismatch'
  | 'createHashMismatch'
  | 'updateMissing'
  | 'updateHashMismatch'
  | 'fieldNotInGroups';

/** A consistency problem found while applying a packet. */
export interface StoreIssue {
  kind: StoreIssueKind;
  tick: number;
  /** Entity id concerned (for tickGap: -1). */
  id: number;
  /** Hash in the packet. */
  hash: number;
  /** Field index, for fieldNotInGroups. */
  field?: number;
  message: string;
}

/** What one `apply` changed, for viewers such as the inspector. */
export interface ApplyResult {
  tick: number;
  issues: StoreIssue[];
  /** Ids deleted by this packet (and not re-created by it). */
  removed: number[];
  /** Ids created (or re-created) by this packet. */
  created: number[];
  /** Issues of this packet past `diepMaxIssuesKept` (counted in `issueCounts`, not listed). */
  issuesDropped: number;
  /**
   * Field indices changed by updates, per id (created entities are not listed here).
   * Filled only when tracking; otherwise a shared empty map (do not modify it).
   */
  changed: ReadonlyMap<number, number[]>;
}

const NO_CHANGES: ReadonlyMap<number, number[]> = new Map();

export interface EntityStoreOptions {
  table?: FieldTable;
  /** Called for each issue; default: keep the last `diepMaxIssuesKept` in `store.issues`. */
  onIssue?: (issue: StoreIssue) => void;
  /** `diepMaxStoredEntities`, `diepMaxStoreBytes`, `diepMaxIssuesKept` (and the decode limits of `applyBytes`). */
  limits?: Partial<DiepLimits>;
}

function sameRef(a: EntityRef | null, b: EntityRef | null): boolean {
  if (a === null || b === null) return a === b;
  return a.id === b.id && a.hash === b.hash;
}

/** What one message changed, in the vocabulary of every family (`ClientMirror`), ids as text. */
export interface DiepChanges extends MirrorChanges {
  /** Issues past `diepMaxIssuesKept` in this message (counted in `issueCounts`, not listed). */
  issuesDropped: number;
}

/**
 * The client mirror of the Diep.io world. `apply(message)` is the `ClientMirror`
 * contract (any clientbound message: 0x00, 0x02 holding one, others change nothing);
 * `applyBytes` / `applyPacket` / `applyFlat` are the fast forms with numeric ids.
 */
export class EntityStore implements ClientMirror<Uint8Array | UpdatePacket> {
  readonly table: FieldTable;
  readonly entities = new Map<number, StoredEntity>();
  /** Tick of the last applied packet. */
  lastTick: number | undefined = undefined;
  /** Every issue reported since the last `reset`, by kind (whether kept, dropped or given to `onIssue`). */
  readonly issueCounts = new Map<StoreIssueKind, number>();
  /** The limits in force (`diepMaxStoredEntities`, `diepMaxStoreBytes`, `diepMaxIssuesKept`, decode limits). */
  readonly limits: Readonly<DiepLimits>;
  /**
   * Bytes the entities hold, as `diepMaxStoreBytes` counts them (the sum of their `bytes`):
   * strings at 2 bytes per UTF-16 code unit plus a fixed estimate per entity, group, field
   * and array element. Kept up to date by every create, update, delete and replace.
   */
  storeBytes = 0;
  /** Per group id: `GROUP_BYTES` plus what its fields count (scalar `SLOT_BYTES`, array `ARRAY_BYTES` + `SLOT_BYTES` per element). */
  private readonly groupBytes: Float64Array;
  /** What every entity counts before its groups and strings: `ENTITY_BYTES` + 8 per field of the table. */
  private readonly entityBytes: number;
  /** What an entity of every group of the table counts before its strings (the most of a decoded creation: groups strictly increasing). */
  private readonly maxFixedBytes: number;
  private readonly onIssue: ((issue: StoreIssue) => void) | undefined;
  /** The last `diepMaxIssuesKept` issues, as a ring: `ring[(ringStart + i) % max]`. */
  private ring: StoreIssue[] = [];
  private ringStart = 0;
  private readonly maxKept: number;

  constructor(opts: EntityStoreOptions = {}) {
    this.table = opts.table ?? FIELDS_6F59094D;
    this.onIssue = opts.onIssue;
    this.limits = resolveDiepLimits(opts.limits);
    this.maxKept = Math.max(0, this.limits.diepMaxIssuesKept);
    this.flatOpts = { table: this.table, limits: this.limits };
    const t = this.table;
    const gb = new Float64Array(t.groupCount).fill(GROUP_BYTES);
    for (let f = 0; f < t.fieldCount; f++) {
      const len = t.fieldLen[f]!;
      const g = t.fieldGroup[f]!;
      gb[g] = gb[g]! + (len === 0 ? SLOT_BYTES : ARRAY_BYTES + SLOT_BYTES * len);
    }
    this.groupBytes = gb;
    this.entityBytes = ENTITY_BYTES + 8 * t.fieldCount;
    this.maxFixedBytes = this.entityBytes + gb.reduce((n, b) => n + b, 0);
  }

  /** What an entity of groups `groups[g0 .. g1 - 1]` counts before its strings. */
  private fixedBytes(groups: ArrayLike<number>, g0: number, g1: number): number {
    const gb = this.groupBytes;
    let n = this.entityBytes;
    for (let k = g0; k < g1; k++) n += gb[groups[k]!] ?? GROUP_BYTES;
    return n;
  }

  /**
   * What an entity counts toward `storeBytes`, recounted from its groups and values
   * (equal to its running `e.bytes`; for tests and checks).
   */
  countBytes(e: StoredEntity): number {
    let n = this.fixedBytes(e.groups, 0, e.groups.length);
    for (const v of e.values) {
      if (Array.isArray(v)) for (const x of v) n += heldBytes(x);
      else n += heldBytes(v);
    }
    return n;
  }

  /**
   * The last `diepMaxIssuesKept` issues, oldest first, when no `onIssue` was given
   * (a fresh array; `issueCounts` counts all of them).
   */
  get issues(): StoreIssue[] {
    const n = this.ring.length;
    if (this.ringStart === 0) return this.ring.slice();
    const out: StoreIssue[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = this.ring[(this.ringStart + i) % n]!;
    return out;
  }

  /** Issues reported since the last `reset` (all kinds). */
  get issueTotal(): number {
    let n = 0;
    for (const c of this.issueCounts.values()) n += c;
    return n;
  }

  private report(result: ApplyResult, issue: StoreIssue): void {
    this.issueCounts.set(issue.kind, (this.issueCounts.get(issue.kind) ?? 0) + 1);
    if (result.issues.length < this.maxKept) result.issues.push(issue);
    else result.issuesDropped++;
    if (this.onIssue !== undefined) {
      this.onIssue(issue);
      return;
    }
    const max = this.maxKept;
    if (max === 0) return;
    if (this.ring.length < max) this.ring.push(issue);
    else {
      this.ring[this.ringStart] = issue;
      this.ringStart = (this.ringStart + 1) % max;
    }
  }

  /** Forget everything (entities, last tick, collected issues and their counts). */
  reset(): void {
    this.entities.clear();
    this.storeBytes = 0;
    this.lastTick = undefined;
    this.ring = [];
    this.ringStart = 0;
    this.issueCounts.clear();
  }

  get(id: number): StoredEntity | undefined {
    return this.entities.get(id);
  }

  /** The entity a reference names, when present with that hash. */
  resolve(ref: EntityRef | null): StoredEntity | undefined {
    if (ref === null) return undefined;
    const e = this.entities.get(ref.id);
    return e !== undefined && e.hash === ref.hash ? e : undefined;
  }

  /** A field value by `group.field` key or index. */
  field(e: StoredEntity, key: string | number): Scalar | Scalar[] | undefined {
    const f = typeof key === 'number' ? key : this.table.byKey.get(key);
    return f === undefined ? undefined : e.values[f];
  }

  /** The typed view of an entity: one object per group, keyed by field name. */
  view(id: number): DiepEntityView | undefined {
    const e = this.entities.get(id);
    return e === undefined ? undefined : entityView(e, this.table);
  }

  /**
   * Apply one clientbound message (bytes: 0x00, or 0x02 holding one; anything else
   * changes nothing) or an update packet object, and say what changed (ids as text).
   * Throws only DecodeError (LimitError included); the store is then unchanged.
   */
  apply(message: Uint8Array | UpdatePacket): DiepChanges {
    let r: ApplyResult;
    if (message instanceof Uint8Array) {
      if (message.length > 0 && message[0] === 0) r = this.applyBytes(message, undefined, true);
      else {
        const p = decodeClientbound(message, { table: this.table, limits: this.limits });
        const inner = p.type === 'Compressed' ? p.inner : p;
        if (inner.type !== 'Update') return { created: [], updated: new Map(), removed: [], issues: [], issuesDropped: 0 };
        // decoded from at most maxLz4Output bytes: its strings hold at most twice that
        const buf = (this.flatPacket ??= new UpdateBuffer());
        r = this.applyChecked(flattenUpdate(inner, buf, this.table), true, 2 * this.limits.maxLz4Output);
      }
    } else r = this.applyPacket(message, true);
    return this.changesOf(r);
  }

  /** An `ApplyResult` (numeric ids, field indices) in the `ClientMirror` vocabulary. */
  changesOf(r: ApplyResult): DiepChanges {
    const fields = this.table.fields;
    const updated = new Map<string, string[]>();
    for (const [id, fs] of r.changed)
      updated.set(
        String(id),
        fs.map((f) => fields[f]!.key),
      );
    const issues: MirrorIssue[] = r.issues.map((i) =>
      i.id < 0 ? { kind: i.kind, message: i.message } : { kind: i.kind, message: i.message, id: String(i.id) },
    );
    return { tick: r.tick, created: r.created.map(String), updated, removed: r.removed.map(String), issues, issuesDropped: r.issuesDropped };
  }

  /** Entity ids held, as text, ascending. */
  entityIds(): string[] {
    return [...this.entities.keys()].sort((a, b) => a - b).map(String);
  }

  /** One entity's kind (from its groups) and fields (`group.field` keys, JSON values, table order). */
  entity(id: string): MirroredEntity | undefined {
    const e = /^(0|[1-9]\d*)$/.test(id) ? this.entities.get(Number(id)) : undefined;
    if (e === undefined) return undefined;
    const table = this.table;
    const fields: Record<string, unknown> = {};
    for (let f = 0; f < table.fieldCount; f++) {
      const v = e.values[f];
      if (v !== undefined) fields[table.fields[f]!.key] = valueJson(table.fieldEnc[f]!, v);
    }
    return { type: entityType(e, table), fields };
  }

  /** Apply one packet object. With `track`, the result lists what changed (slower). Same rules as `applyFlat`. */
  applyPacket(p: UpdatePacket, track = false): ApplyResult {
    const buf = (this.flatPacket ??= new UpdateBuffer());
    return this.applyFlat(flattenUpdate(p, buf, this.table), track);
  }

  private flatPacket: UpdateBuffer | undefined;
  private flat: UpdateBuffer | undefined;
  private readonly flatOpts: FlatDecodeOptions;

  /**
   * Decode a 0x00 packet and apply it in one go, without building packet objects (the
   * fast path for clients). Same rules, errors and issues as `decodeUpdate` + `apply`;
   * a DecodeError leaves the store untouched.
   */
  applyBytes(bytes: Uint8Array, opts?: FlatDecodeOptions, track = false): ApplyResult {
    const buf = (this.flat ??= new UpdateBuffer());
    decodeUpdateInto(bytes, buf, opts === undefined ? this.flatOpts : opts.table === undefined ? { ...opts, table: this.table } : opts);
    // each string is decoded from its own UTF-8 bytes (at least one per UTF-16 code unit)
    return this.applyChecked(buf, track, 2 * bytes.length);
  }

  /** Apply a packet held in an `UpdateBuffer`. */
  applyFlat(p: UpdateBuffer, track = false): ApplyResult {
    return this.applyChecked(p, track, Number.POSITIVE_INFINITY);
  }

  /** `applyFlat` of a packet whose strings are known to hold at most `heldMax` bytes together. */
  private applyChecked(p: UpdateBuffer, track: boolean, heldMax: number): ApplyResult {
    this.checkRoom(p, heldMax);
    const table = this.table;
    const issues: StoreIssue[] = [];
    const tick = p.tick;
    const result: ApplyResult = { tick, issues, issuesDropped: 0, removed: [], created: [], changed: track ? new Map() : NO_CHANGES };
    if (this.lastTick !== undefined && tick !== (this.lastTick + 1) >>> 0) {
      this.report(result, { kind: 'tickGap', tick, id: -1, hash: 0, message: `tick ${tick} after ${this.lastTick}` });
    }
    const entities = this.entities;
    for (let i = 0; i < p.delCount; i++) {
      const id = p.delId[i]!;
      const hash = p.delHash[i]!;
      const e = entities.get(id);
      if (e === undefined) {
        this.report(result, { kind: 'deleteMissing', tick, id, hash, message: `deletion of <${id},${hash}>, which is not present` });
        continue;
      }
      if (e.hash !== hash) {
        this.report(result, { kind: 'deleteHashMismatch', tick, id, hash, message: `deletion of <${id},${hash}>, present as <${e.id},${e.hash}>` });
      }
      entities.delete(id);
      this.storeBytes -= e.bytes;
      if (track) result.removed.push(id);
    }
    const fieldGroup = table.fieldGroup;
    const fieldLen = table.fieldLen;
    const entField = p.entField;
    const entElem = p.entElem;
    const entNum = p.entNum;
    const entObj = p.entObj;
    for (let i = 0; i < p.upCount; i++) {
      const id = p.upId[i]!;
      const hash = p.upHash[i]!;
      const from = p.entStart[i]!;
      const to = p.entStart[i + 1]!;
      if (p.upMode[i] === 1) {
        const old = entities.get(id);
        if (old !== undefined && old.hash !== hash) {
          this.report(result, { kind: 'createHashMismatch', tick, id, hash, message: `creation of <${id},${hash}> over <${old.id},${old.hash}>` });
        }
        const values: (Scalar | Scalar[] | undefined)[] = new Array(table.fieldCount);
        const g0 = p.grpStart[i]!;
        const g1 = p.grpStart[i + 1]!;
        let bytes = this.fixedBytes(p.groups, g0, g1);
        for (let j = from; j < to; j++) {
          const key = entField[j]!;
          const f = key < 0 ? ~key : key;
          let v: Scalar;
          if (key < 0) {
            v = entObj[j]!;
            if (typeof v === 'string') bytes += 2 * v.length;
          } else v = entNum[j]!;
          const el = entElem[j]!;
          if (el < 0) values[f] = v;
          else {
            let arr = values[f] as Scalar[] | undefined;
            if (arr === undefined) values[f] = arr = new Array(fieldLen[f]!);
            arr[el] = v;
          }
        }
        const groups: number[] = [];
        for (let g = g0; g < g1; g++) groups.push(p.groups[g]!);
        entities.set(id, { id, hash, groups, values, groupMask: maskOf(groups), bytes });
        this.storeBytes += old === undefined ? bytes : bytes - old.bytes;
        if (track) result.created.push(id);
        continue;
      }
      const e = entities.get(id);
      if (e === undefined) {
        this.report(result, { kind: 'updateMissing', tick, id, hash, message: `update of <${id},${hash}>, which is not present` });
        continue;
      }
      if (e.hash !== hash) {
        this.report(result, { kind: 'updateHashMismatch', tick, id, hash, message: `update of <${id},${hash}>, present as <${e.id},${e.hash}>` });
        continue;
      }
      const ev = e.values;
      let lastBad = -1;
      let changed: number[] | undefined;
      if (track) {
        changed = result.changed.get(id);
        if (changed === undefined) (result.changed as Map<number, number[]>).set(id, (changed = []));
      }
      for (let j = from; j < to; j++) {
        const key = entField[j]!;
        const f = key < 0 ? ~key : key;
        if (!hasGroup(e, fieldGroup[f]!)) {
          if (f !== lastBad) {
            lastBad = f;
            this.report(result, {
              kind: 'fieldNotInGroups',
              tick,
              id,
              hash,
              field: f,
              message: `update of <${id},${hash}> sets ${table.fields[f]?.key ?? f}, whose group it does not have`,
            });
          }
          continue;
        }
        if (changed !== undefined && !changed.includes(f)) changed.push(f);
        const el = entElem[j]!;
        if (el === -2) continue; // array field marker
        // strings held change by what the new value holds minus what the old one held
        if (el < 0) {
          const was = ev[f];
          if (key < 0) {
            const v = entObj[j]!;
            const d = heldBytes(v) - heldBytes(was);
            if (d !== 0) {
              e.bytes += d;
              this.storeBytes += d;
            }
            ev[f] = v;
          } else {
            if (typeof was === 'string') {
              e.bytes -= 2 * was.length;
              this.storeBytes -= 2 * was.length;
            }
            ev[f] = entNum[j]!;
          }
        } else {
          const arr = ev[f] as Scalar[];
          const was = arr[el];
          const v = key < 0 ? entObj[j]! : entNum[j]!;
          const d = heldBytes(v) - heldBytes(was);
          if (d !== 0) {
            e.bytes += d;
            this.storeBytes += d;
          }
          arr[el] = v;
        }
      }
    }
    if (track) result.removed = result.removed.filter((id) => !entities.has(id) || !result.created.includes(id));
    this.lastTick = tick;
    return result;
  }

  /**
   * Throw a LimitError (store unchanged) when applying `p` would hold more than
   * `diepMaxStoredEntities` entities or `diepMaxStoreBytes` bytes. `heldMax`: a bound on
   * what the packet's strings hold together, when known (else infinity).
   */
  private checkRoom(p: UpdateBuffer, heldMax: number): void {
    const max = this.limits.diepMaxStoredEntities;
    const entities = this.entities;
    let creations = 0;
    for (let i = 0; i < p.upCount; i++) creations += p.upMode[i]!;
    if (entities.size + creations > max) {
      const gone = new Set<number>();
      for (let i = 0; i < p.delCount; i++) if (entities.has(p.delId[i]!)) gone.add(p.delId[i]!);
      const added = new Set<number>();
      for (let i = 0; i < p.upCount; i++) {
        const id = p.upId[i]!;
        if (p.upMode[i] === 1 && (!entities.has(id) || gone.has(id))) added.add(id);
      }
      const after = entities.size - gone.size + added.size;
      if (after > max) throw new LimitError(0, '', 'diepMaxStoredEntities', after, max);
    }
    // Bytes: first upper bounds, nothing freed. Decoded packets (finite `heldMax`): each
    // creation at most every group once, the strings at most `heldMax`. Then each creation
    // of its groups and every string of the packet counted. When one fits, the exact count
    // fits too; otherwise count exactly.
    const maxBytes = this.limits.diepMaxStoreBytes;
    if (this.storeBytes + creations * this.maxFixedBytes + heldMax <= maxBytes) return;
    let bound = this.storeBytes;
    if (creations > 0) for (let i = 0; i < p.upCount; i++) if (p.upMode[i] === 1) bound += this.fixedBytes(p.groups, p.grpStart[i]!, p.grpStart[i + 1]!);
    const entField = p.entField;
    const entObj = p.entObj;
    for (let j = 0; j < p.entCount; j++) if (entField[j]! < 0) bound += heldBytes(entObj[j]);
    if (bound <= maxBytes) return;
    const after = this.bytesAfter(p);
    if (after > maxBytes) throw new LimitError(0, '', 'diepMaxStoreBytes', after, maxBytes);
  }

  /**
   * `storeBytes` once `p` is applied (the same rules as `applyFlat`), the store untouched:
   * the entities the packet deletes, creates or updates are followed as copies.
   */
  private bytesAfter(p: UpdateBuffer): number {
    interface Copy extends GroupSet {
      hash: number;
      values: (Scalar | Scalar[] | undefined)[];
      /** The stored entity's values when copied from it (its arrays are copied before a write). */
      base: (Scalar | Scalar[] | undefined)[] | undefined;
      bytes: number;
    }
    const table = this.table;
    const entities = this.entities;
    const copies = new Map<number, Copy | null>(); // null: deleted by the packet
    let bytes = this.storeBytes;
    for (let i = 0; i < p.delCount; i++) {
      const id = p.delId[i]!;
      if (copies.has(id)) continue;
      const e = entities.get(id);
      if (e === undefined) continue;
      copies.set(id, null);
      bytes -= e.bytes;
    }
    const { entField, entElem, entNum, entObj } = p;
    for (let i = 0; i < p.upCount; i++) {
      const id = p.upId[i]!;
      const hash = p.upHash[i]!;
      const from = p.entStart[i]!;
      const to = p.entStart[i + 1]!;
      const held = copies.get(id);
      const cur = held === undefined ? entities.get(id) : held === null ? undefined : held;
      if (p.upMode[i] === 1) {
        if (cur !== undefined) bytes -= cur.bytes;
        const g0 = p.grpStart[i]!;
        const g1 = p.grpStart[i + 1]!;
        const groups: number[] = [];
        for (let g = g0; g < g1; g++) groups.push(p.groups[g]!);
        const values: (Scalar | Scalar[] | undefined)[] = new Array(table.fieldCount);
        let n = this.fixedBytes(groups, 0, groups.length);
        for (let j = from; j < to; j++) {
          const key = entField[j]!;
          const f = key < 0 ? ~key : key;
          const v = key < 0 ? entObj[j]! : entNum[j]!;
          n += heldBytes(v);
          const el = entElem[j]!;
          if (el < 0) values[f] = v;
          else ((values[f] ??= new Array(table.fieldLen[f]!)) as Scalar[])[el] = v;
        }
        copies.set(id, { hash, groups, groupMask: maskOf(groups), values, base: undefined, bytes: n });
        bytes += n;
        continue;
      }
      if (cur === undefined || cur.hash !== hash) continue;
      let c: Copy;
      if (held === undefined) {
        const e = cur as StoredEntity;
        c = { hash: e.hash, groups: e.groups, groupMask: e.groupMask, values: e.values.slice(), base: e.values, bytes: e.bytes };
        copies.set(id, c);
      } else c = held!;
      const values = c.values;
      for (let j = from; j < to; j++) {
        const key = entField[j]!;
        const f = key < 0 ? ~key : key;
        if (!hasGroup(c, table.fieldGroup[f]!)) continue;
        const el = entElem[j]!;
        if (el === -2) continue;
        const v = key < 0 ? entObj[j]! : entNum[j]!;
        let was: unknown;
        if (el < 0) {
          was = values[f];
          values[f] = v;
        } else {
          let arr = values[f] as Scalar[] | undefined;
          if (arr === undefined) continue; // (not from a decoded or flattened packet: a creation carries every array field of its groups)
          if (c.base !== undefined && arr === c.base[f]) values[f] = arr = arr.slice();
          was = arr[el];
          arr[el] = v;
        }
        const d = heldBytes(v) - heldBytes(was);
        c.bytes += d;
        bytes += d;
      }
    }
    return bytes;
  }

  /** True when `a` and `b` name the same entity. */
  static sameRef = sameRef;
}

/** Typed view of an entity of build 6f59094d (each group's fields by name; absent groups undefined). */
export interface DiepEntityView {
  id: number;
  hash: number;
  groups: string[];
  relations?: {
    parent: EntityRef | null;
    owner: EntityRef | null;
    team: EntityRef | null;
  };
  barrel?: {
    flags: number;
    reloadTime: number | F32Bits;
    trapezoidDirection: number | F32Bits;
  };
  physics?: {
    flags: number;
    sides: number;
    size: number | F32Bits;
    width: number | F32Bits;
    absorbtionFactor: number | F32Bits;
    pushFactor: number | F32Bits;
  };
  health?: {
    flags: number;
    health: number | F32Bits;
    maxHealth: number | F32Bits;
  };
  example?: {
    exampleTest: number;
  };
  arena?: {
    flags: number;
    leftX: number | F32Bits;
    topY: number | F32Bits;
    rightX: number | F32Bits;
    bottomY: number | F32Bits;
    scoreboardAmount: number;
    scoreboardNames: string[];
    scoreboardScores: (number | F32Bits)[];
    scoreboardColors: number[];
    scoreboardSuffixes: string[];
    scoreboardTanks: number[];
    leaderX: number | F32Bits;
    leaderY: number | F32Bits;
    playersNeeded: number;
    ticksUntilStart: number | F32Bits;
  };
  name?: {
    flags: number;
    name: string;
  };
  camera?: {
    unusedClientId: number;
    flags: number;
    player: EntityRef | null;
    FOV: number | F32Bits;
    level: number;
    tank: number;
    levelbarProgress: number | F32Bits;
    levelbarMax: number | F32Bits;
    statsAvailable: number;
    statNames: string[];
    statLevels: number[];
    statLimits: number[];
    cameraX: number | F32Bits;
    cameraY: number | F32Bits;
    score: number | F32Bits;
    respawnLevel: number;
    killedBy: string;
    spawnTick: number;
    deathTick: number;
    tankOverride: string;
    movementSpeed: number | F32Bits;
  };
  position?: {
    x: number;
    y: number;
    angle: number;
    flags: number;
  };
  style?: {
    flags: number;
    color: number;
    borderWidth: number;
    opacity: number | F32Bits;
    zIndex: number;
  };
  score?: {
    score: number | F32Bits;
  };
  team?: {
    teamColor: number;
    mothershipX: number | F32Bits;
    mothershipY: number | F32Bits;
    flags: number;
  };
}

/** Build the view of a stored entity: one object per present group, its fields by name. */
export function entityView(e: StoredEntity, table: FieldTable = FIELDS_6F59094D): DiepEntityView {
  const view: Record<string, unknown> = { id: e.id, hash: e.hash, groups: e.groups.map((g) => table.groups[g]?.name ?? String(g)) };
  for (const g of e.groups) {
    const def = table.groups[g];
    if (def === undefined || def.fields.length === 0) continue;
    const o: Record<string, unknown> = {};
    for (const f of def.fields) o[table.fields[f]!.name] = e.values[f];
    view[def.name] = o;
  }
  return view as unknown as DiepEntityView;
}

/**
 * Client side: a mirror of the world that applies 0x00 update packets (reference §6).
 *
 * Deletions are applied before upcreates; a creation replaces whatever had its id;
 * updates must name a present `<id,hash>` and fields of its groups; array updates
 * merge element by element. Inconsistencies are reported (collected in `issues`,
 * or handed to `onIssue`), never thrown away and never thrown.
 */
import type { FieldTable } from './tables/schema.js';
import { UpdateBuffer, decodeUpdateInto, type FlatDecodeOptions } from './flat.js';
import { FIELDS_6F59094D } from './tables/index.js';
import type { ElementChanges, EntityRef, F32Bits, Scalar, UpdatePacket } from './types.js';

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
}

function maskOf(groups: readonly number[]): number {
  let m = 0;
  for (const g of groups) {
    if (g > 30) return -1;
    m |= 1 << g;
  }
  return m;
}

function hasGroup(e: StoredEntity, g: number): boolean {
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
  /**
   * Field indices changed by updates, per id (created entities are not listed here).
   * Filled only when tracking; otherwise a shared empty map (do not modify it).
   */
  changed: ReadonlyMap<number, number[]>;
}

const NO_CHANGES: ReadonlyMap<number, number[]> = new Map();

export interface EntityStoreOptions {
  table?: FieldTable;
  /** Called for each issue; default: collect into `store.issues`. */
  onIssue?: (issue: StoreIssue) => void;
}

function sameRef(a: EntityRef | null, b: EntityRef | null): boolean {
  if (a === null || b === null) return a === b;
  return a.id === b.id && a.hash === b.hash;
}

export class EntityStore {
  readonly table: FieldTable;
  readonly entities = new Map<number, StoredEntity>();
  /** Tick of the last applied packet. */
  lastTick: number | undefined = undefined;
  /** Issues collected when no `onIssue` was given. */
  readonly issues: StoreIssue[] = [];
  private readonly onIssue: ((issue: StoreIssue) => void) | undefined;

  constructor(opts: EntityStoreOptions = {}) {
    this.table = opts.table ?? FIELDS_6F59094D;
    this.onIssue = opts.onIssue;
    this.flatOpts = { table: this.table };
  }

  private report(out: StoreIssue[] | undefined, issue: StoreIssue): void {
    if (out !== undefined) out.push(issue);
    if (this.onIssue !== undefined) this.onIssue(issue);
    else this.issues.push(issue);
  }

  /** Forget everything (entities, last tick, collected issues). */
  reset(): void {
    this.entities.clear();
    this.lastTick = undefined;
    this.issues.length = 0;
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

  /** Apply one packet. With `track`, the result lists what changed (slower). */
  apply(p: UpdatePacket, track = false): ApplyResult {
    const table = this.table;
    const issues: StoreIssue[] = [];
    const tick = p.tick;
    const result: ApplyResult = { tick, issues, removed: [], created: [], changed: track ? new Map() : NO_CHANGES };
    if (this.lastTick !== undefined && tick !== ((this.lastTick + 1) >>> 0)) {
      this.report(issues, { kind: 'tickGap', tick, id: -1, hash: 0, message: `tick ${tick} after ${this.lastTick}` });
    }
    const entities = this.entities;
    for (const d of p.deletions) {
      const e = entities.get(d.id);
      if (e === undefined) {
        this.report(issues, { kind: 'deleteMissing', tick, id: d.id, hash: d.hash, message: `deletion of <${d.id},${d.hash}>, which is not present` });
        continue;
      }
      if (e.hash !== d.hash) {
        this.report(issues, { kind: 'deleteHashMismatch', tick, id: d.id, hash: d.hash, message: `deletion of <${d.id},${d.hash}>, present as <${e.id},${e.hash}>` });
      }
      entities.delete(d.id);
      if (track) result.removed.push(d.id);
    }
    const fieldGroup = table.fieldGroup;
    const fieldLen = table.fieldLen;
    for (const u of p.upcreates) {
      if (u.kind === 'creation') {
        const old = entities.get(u.id);
        if (old !== undefined && old.hash !== u.hash) {
          this.report(issues, { kind: 'createHashMismatch', tick, id: u.id, hash: u.hash, message: `creation of <${u.id},${u.hash}> over <${old.id},${old.hash}>` });
        }
        const values = u.values.slice();
        for (let f = 0; f < values.length; f++) {
          const v = values[f];
          if (Array.isArray(v)) values[f] = v.slice();
        }
        entities.set(u.id, { id: u.id, hash: u.hash, groups: u.groups.slice(), values, groupMask: maskOf(u.groups) });
        if (track) result.created.push(u.id);
        continue;
      }
      const e = entities.get(u.id);
      if (e === undefined) {
        this.report(issues, { kind: 'updateMissing', tick, id: u.id, hash: u.hash, message: `update of <${u.id},${u.hash}>, which is not present` });
        continue;
      }
      if (e.hash !== u.hash) {
        this.report(issues, { kind: 'updateHashMismatch', tick, id: u.id, hash: u.hash, message: `update of <${u.id},${u.hash}>, present as <${e.id},${e.hash}>` });
        continue;
      }
      const fields = u.fields;
      const vals = u.values;
      const ev = e.values;
      for (let i = 0; i < fields.length; i++) {
        const f = fields[i]!;
        if (!hasGroup(e, fieldGroup[f]!)) {
          this.report(issues, {
            kind: 'fieldNotInGroups',
            tick,
            id: u.id,
            hash: u.hash,
            field: f,
            message: `update of <${u.id},${u.hash}> sets ${table.fields[f]?.key ?? f}, whose group it does not have`,
          });
          continue;
        }
        if (fieldLen[f] === 0) ev[f] = vals[i] as Scalar;
        else {
          const ec = vals[i] as ElementChanges;
          const target = ev[f] as Scalar[];
          for (let k = 0; k < ec.indices.length; k++) target[ec.indices[k]!] = ec.values[k]!;
        }
      }
      if (track) {
        const prev = result.changed.get(u.id);
        if (prev === undefined) (result.changed as Map<number, number[]>).set(u.id, fields.slice());
        else for (const f of fields) if (!prev.includes(f)) prev.push(f);
      }
    }
    if (track) result.removed = result.removed.filter((id) => !entities.has(id) || !result.created.includes(id));
    this.lastTick = tick;
    return result;
  }

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
    return this.applyFlat(buf, track);
  }

  /** Apply a packet held in an `UpdateBuffer`. */
  applyFlat(p: UpdateBuffer, track = false): ApplyResult {
    const table = this.table;
    const issues: StoreIssue[] = [];
    const tick = p.tick;
    const result: ApplyResult = { tick, issues, removed: [], created: [], changed: track ? new Map() : NO_CHANGES };
    if (this.lastTick !== undefined && tick !== ((this.lastTick + 1) >>> 0)) {
      this.report(issues, { kind: 'tickGap', tick, id: -1, hash: 0, message: `tick ${tick} after ${this.lastTick}` });
    }
    const entities = this.entities;
    for (let i = 0; i < p.delCount; i++) {
      const id = p.delId[i]!;
      const hash = p.delHash[i]!;
      const e = entities.get(id);
      if (e === undefined) {
        this.report(issues, { kind: 'deleteMissing', tick, id, hash, message: `deletion of <${id},${hash}>, which is not present` });
        continue;
      }
      if (e.hash !== hash) {
        this.report(issues, { kind: 'deleteHashMismatch', tick, id, hash, message: `deletion of <${id},${hash}>, present as <${e.id},${e.hash}>` });
      }
      entities.delete(id);
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
          this.report(issues, { kind: 'createHashMismatch', tick, id, hash, message: `creation of <${id},${hash}> over <${old.id},${old.hash}>` });
        }
        const values: (Scalar | Scalar[] | undefined)[] = new Array(table.fieldCount);
        for (let j = from; j < to; j++) {
          const key = entField[j]!;
          const f = key < 0 ? ~key : key;
          const v = key < 0 ? entObj[j]! : entNum[j]!;
          const el = entElem[j]!;
          if (el < 0) values[f] = v;
          else {
            let arr = values[f] as Scalar[] | undefined;
            if (arr === undefined) values[f] = arr = new Array(fieldLen[f]!);
            arr[el] = v;
          }
        }
        const groups: number[] = [];
        for (let g = p.grpStart[i]!; g < p.grpStart[i + 1]!; g++) groups.push(p.groups[g]!);
        entities.set(id, { id, hash, groups, values, groupMask: maskOf(groups) });
        if (track) result.created.push(id);
        continue;
      }
      const e = entities.get(id);
      if (e === undefined) {
        this.report(issues, { kind: 'updateMissing', tick, id, hash, message: `update of <${id},${hash}>, which is not present` });
        continue;
      }
      if (e.hash !== hash) {
        this.report(issues, { kind: 'updateHashMismatch', tick, id, hash, message: `update of <${id},${hash}>, present as <${e.id},${e.hash}>` });
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
            this.report(issues, {
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
        const v = key < 0 ? entObj[j]! : entNum[j]!;
        if (el < 0) ev[f] = v;
        else (ev[f] as Scalar[])[el] = v;
      }
    }
    if (track) result.removed = result.removed.filter((id) => !entities.has(id) || !result.created.includes(id));
    this.lastTick = tick;
    return result;
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
    scoreboardNames: (string)[];
    scoreboardScores: (number | F32Bits)[];
    scoreboardColors: (number)[];
    scoreboardSuffixes: (string)[];
    scoreboardTanks: (number)[];
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
    statNames: (string)[];
    statLevels: (number)[];
    statLimits: (number)[];
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

/**
 * Client side (reference §6.2, §6.3, §13.4): reassemble snapshot parts in any
 * order, find the base, apply the delta, verify the CRC, store by tick, track
 * the tick to acknowledge. A snapshot comes out complete and verified, or not
 * at all.
 */
import { DecodeError } from '../../core/errors.js';
import type { SpanSink } from '../../core/spans.js';
import { noChanges, type ClientMirror, type MirrorChanges, type MirroredEntity } from '../../core/mirror.js';
import { decodeSnapMessage, MAX_SNAPSHOT_PACKSIZE, type SnapDecodeOptions, type SnapKind, type SnapMessage } from './codec.js';
import { STATIC_SIZES, unpackDeltaBytes, type TwVersion } from './delta.js';
import { intsToUuid, itemTypeInfo, typedItem } from './items.js';
import { resolveTwLimits, type TwLimits } from './limits.js';
import { Arena, Snapshot, SnapshotStorage } from './snapshot.js';
import type { DeltaSpans } from './unpack.js';
import type { VarintMode } from './varint.js';

export interface ReceiverOptions {
  /** 5th-byte varint rule (default `'ddnet'`, see §2.3). */
  mode?: VarintMode;
  /** Part size the server slices with (default 900); every part but the last must have exactly this size. */
  partSize?: number;
  /** Most parts (default: the `twMaxParts` limit, 64 as in the games). */
  maxParts?: number;
  /** Limits, including the storage bounds `twMaxStoredSnapshots` and `twMaxStoredBytes`. */
  limits?: Partial<TwLimits>;
  /** CRC errors tolerated before acknowledging −1 (default 10, as the games). */
  maxCrcErrors?: number;
  /** Accept only ticks above the last acknowledged one (DDNet's rule; default true). */
  requireNewerThanAck?: boolean;
  /**
   * Reuse the memory of purged snapshots (default false). Faster; but then a
   * snapshot must not be read after it left the storage (purged once a newer
   * base is used, or kept as a delta once two newer snapshots are stored):
   * copy what you keep.
   */
  recycle?: boolean;
  /** Memory for decoded snapshots (default: one of its own). */
  arena?: Arena;
}

export type ReceiveStatus =
  /** A snapshot was completed, verified and stored. */
  | 'complete'
  /** A part was stored; more are needed. */
  | 'partial'
  /** Old tick, or otherwise not for us; nothing changed. */
  | 'ignored'
  /** The base snapshot is not stored: the ack was set to −1. */
  | 'missing-base'
  /** The snapshot was rebuilt but its CRC did not match: dropped. */
  | 'crc-error'
  /** The reassembled delta was malformed: dropped (see `error`). */
  | 'bad-delta';

export interface ReceiveResult {
  status: ReceiveStatus;
  message: SnapMessage;
  /** Present for `complete` and `crc-error`. */
  snapshot?: Snapshot;
  /** CRC of the rebuilt snapshot (complete, crc-error). */
  crc?: number;
  /** The packed delta bytes of the completed snapshot (all parts in order). */
  delta?: Uint8Array;
  error?: DecodeError;
}

/** The storage's `rebuild` (made here, not as an arrow in the constructor: tsx/esbuild's keepNames names such a closure with a defineProperty per receiver). */
function rebuilder(sizes: Int32Array, mode: VarintMode, limits: Readonly<TwLimits>, arena: Arena): (base: Snapshot, delta: Uint8Array) => Snapshot {
  return (base, delta) => unpackDeltaBytes(base, delta, 0, delta.length, sizes, mode, limits, arena);
}

/**
 * Receives snapshot messages of one connection. It is the family's client
 * mirror: `apply(message)` says which items (ids `"type:id"`) a completed
 * snapshot created, changed (by field name) and removed.
 */
export class SnapshotReceiver implements ClientMirror {
  readonly version: TwVersion;
  readonly storage: SnapshotStorage;
  /** Internal extended type → UUID, learned from declarations of all snapshots so far (past `twMaxItems`, only the last one's). */
  readonly declarations = new Map<number, string>();
  private readonly mode: VarintMode;
  private readonly partSize: number;
  private readonly maxParts: number;
  private readonly limits: Readonly<TwLimits>;
  private readonly arena: Arena;
  private readonly maxCrcErrors: number;
  private readonly requireNewer: boolean;
  private readonly sizes: Int32Array;
  private readonly decodeOpts: SnapDecodeOptions;

  // reassembly state
  private recvTick = -1;
  private numParts = 0;
  private deltaTick = 0;
  private crc = 0;
  private kind: SnapKind = 'snap';
  private parts: (Uint8Array | undefined)[] = [];
  private received = 0;

  /** Tick of the last snapshot stored (−1 if none). */
  lastAckedTick = -1;
  /** The tick to put in the next INPUT (−1 asks for a full snapshot). */
  ackTick = -1;
  /** CRC errors counted as the games do. */
  crcErrors = 0;
  /** The newest stored snapshot. */
  current: Snapshot | undefined;
  currentTick = -1;

  constructor(version: TwVersion, opts: ReceiverOptions = {}) {
    this.version = version;
    this.mode = opts.mode ?? 'ddnet';
    this.partSize = opts.partSize ?? MAX_SNAPSHOT_PACKSIZE;
    this.limits = resolveTwLimits(opts.limits);
    this.maxParts = opts.maxParts ?? this.limits.twMaxParts;
    this.arena = opts.arena ?? new Arena();
    this.maxCrcErrors = opts.maxCrcErrors ?? 10;
    this.requireNewer = opts.requireNewerThanAck ?? true;
    this.sizes = STATIC_SIZES[version];
    this.storage = new SnapshotStorage({
      recycle: opts.recycle === true,
      maxSnapshots: this.limits.twMaxStoredSnapshots,
      maxBytes: this.limits.twMaxStoredBytes,
      rebuild: rebuilder(this.sizes, this.mode, this.limits, this.arena),
    });
    this.decodeOpts = { mode: this.mode, maxPartSize: this.partSize, maxParts: this.maxParts };
  }

  /** Decode a message (bytes as in a chunk) and receive it. Throws DecodeError for a malformed message. */
  receiveBytes(bytes: Uint8Array, spans?: SpanSink, deltaSpans?: DeltaSpans): ReceiveResult {
    const opts = spans === undefined ? this.decodeOpts : { ...this.decodeOpts, spans };
    return this.receive(decodeSnapMessage(bytes, this.version, opts), deltaSpans);
  }

  /** Receive a decoded snapshot message. Never throws. */
  receive(m: SnapMessage, deltaSpans?: DeltaSpans): ReceiveResult {
    if (m.numParts < 1 || m.numParts > this.maxParts || m.part < 0 || m.part >= m.numParts || m.data.length > this.partSize) {
      return { status: 'ignored', message: m };
    }
    if ((this.requireNewer && m.tick <= this.lastAckedTick) || m.tick < this.recvTick) return { status: 'ignored', message: m };
    if (m.tick > this.recvTick || m.numParts !== this.numParts || m.deltaTick !== this.deltaTick || m.crc !== this.crc || m.kind !== this.kind) {
      this.recvTick = m.tick;
      this.numParts = m.numParts;
      this.deltaTick = m.deltaTick;
      this.crc = m.crc;
      this.kind = m.kind;
      this.parts = new Array<Uint8Array | undefined>(m.numParts);
      this.received = 0;
    }
    if (m.part < m.numParts - 1 && m.data.length !== this.partSize) return { status: 'ignored', message: m };
    if (this.parts[m.part] === undefined) this.received++;
    // parts wait for the others: keep a copy, the caller may reuse its buffer
    this.parts[m.part] = m.numParts > 1 ? m.data.slice() : m.data;
    if (this.received < this.numParts) return { status: 'partial', message: m };

    // complete: concatenate in index order
    let total = 0;
    for (let i = 0; i < this.numParts; i++) total += this.parts[i]!.length;
    let blob: Uint8Array;
    if (this.numParts === 1) blob = this.parts[0]!;
    else {
      blob = new Uint8Array(total);
      let o = 0;
      for (let i = 0; i < this.numParts; i++) {
        blob.set(this.parts[i]!, o);
        o += this.parts[i]!.length;
      }
    }
    const deltaTick = this.deltaTick;
    const kind = this.kind;
    const crc = this.crc;
    this.parts = [];
    this.received = 0;
    this.numParts = 0;

    const base = deltaTick === -1 ? Snapshot.EMPTY : this.storage.get(deltaTick);
    if (base === undefined) {
      this.ackTick = -1;
      return { status: 'missing-base', message: m, delta: blob };
    }
    let snap: Snapshot;
    try {
      snap = unpackDeltaBytes(base, blob, 0, blob.length, this.sizes, this.mode, this.limits, this.arena, deltaSpans);
    } catch (e) {
      // (a base held as a delta was rebuilt to be read: it goes back to its delta, as if nothing had come)
      this.storage.resettle();
      const err = e instanceof DecodeError ? e : new DecodeError(0, 'delta', 'a well-formed delta', String(e));
      return { status: 'bad-delta', message: m, delta: blob, error: err.under('delta') };
    }
    const got = snap.crc();
    if (kind !== 'snap_empty' && got !== crc) {
      this.storage.resettle();
      this.crcErrors++;
      if (this.crcErrors > this.maxCrcErrors) {
        this.ackTick = -1;
        this.crcErrors = 0;
      }
      return { status: 'crc-error', message: m, snapshot: snap, crc: got, delta: blob };
    }
    if (kind !== 'snap_empty' && this.crcErrors > 0) this.crcErrors--;
    if (deltaTick >= 0) this.storage.purgeBefore(deltaTick);
    // Against an older base than the newest (loss, lag, or a server that
    // never moves on), keep the delta so that the storage can hold this
    // snapshot as its delta once it is older (a copy: `blob` may be the
    // caller's buffer).
    if (deltaTick >= 0 && deltaTick < this.storage.newest()) this.storage.set(m.tick, snap, deltaTick, blob.slice());
    else this.storage.set(m.tick, snap);
    this.learnDeclarations(snap);
    this.lastAckedTick = m.tick;
    this.ackTick = m.tick;
    this.current = snap;
    this.currentTick = m.tick;
    return { status: 'complete', message: m, snapshot: snap, crc: got, delta: blob };
  }

  // The 4 ints of each declaration seen, to rebuild the UUID string only on change.
  // (made at first use, as `fieldSpecs` and `lastChanges`: a receiver costs less to create)
  private declInts: Map<number, Int32Array> | undefined = undefined;

  private learnDeclarations(snap: Snapshot): void {
    this.learnFrom(snap);
    // Remembered ones past `twMaxItems` (a hostile peer declaring new ids in every snapshot would make them grow to
    // 65,536 UUID strings in two maps): keep only this snapshot's, which fit (it holds at most `twMaxItems` items).
    if (this.declarations.size > this.limits.twMaxItems) {
      this.declarations.clear();
      this.declInts?.clear();
      this.learnFrom(snap);
    }
  }

  private learnFrom(snap: Snapshot): void {
    const keys = snap.keys;
    const off = snap.offsets;
    // the data ints where they live (making the `data` view costs more than this loop)
    const data = snap._mem;
    const d0 = snap._dOff;
    for (let i = 0; i < snap.numItems; i++) {
      const key = keys[i]!;
      if (key >= 0x10000) continue; // not type 0
      if (off[i + 1]! - off[i]! !== 4) continue;
      const o = d0 + off[i]!;
      const id = key & 0xffff;
      const prev = (this.declInts ??= new Map()).get(id);
      if (prev !== undefined && prev[0] === data[o] && prev[1] === data[o + 1] && prev[2] === data[o + 2] && prev[3] === data[o + 3]) continue;
      this.declInts!.set(id, data.slice(o, o + 4));
      this.declarations.set(id, intsToUuid(data, o));
    }
  }

  /** The result of the last `apply`. */
  lastResult: ReceiveResult | undefined;
  /**
   * About the bytes this receiver keeps: its storage's `retainedBytes` plus its arena's own chunk,
   * free chunks and scratch (an over-estimate when the stored snapshots sit in the current chunk).
   */
  get heldBytes(): number {
    return this.storage.retainedBytes + this.arena.heldBytes;
  }

  /** The changes of the last `apply`. */
  get lastChanges(): MirrorChanges {
    return (this._lastChanges ??= noChanges());
  }
  set lastChanges(c: MirrorChanges) {
    this._lastChanges = c;
  }
  private _lastChanges: MirrorChanges | undefined = undefined;

  /**
   * Receive one message (bytes as in a chunk) and say what the completed
   * snapshot changed against the previous one (nothing for a part that
   * completes none). Throws DecodeError for a malformed message, before any
   * state changes. A dropped snapshot (CRC error, missing base, bad delta)
   * changes nothing and is reported as an issue.
   */
  apply(message: Uint8Array, spans?: SpanSink, deltaSpans?: DeltaSpans): MirrorChanges {
    const prev = this.current;
    const r = this.receiveBytes(message, spans, deltaSpans);
    this.lastResult = r;
    const m = r.message;
    let changes: MirrorChanges;
    if (r.status === 'complete') changes = this.diff(prev ?? Snapshot.EMPTY, r.snapshot!, m.tick);
    else {
      changes = noChanges(m.tick);
      if (r.status === 'crc-error')
        changes.issues.push({ kind: 'crc-error', message: `tick ${m.tick}: CRC ${m.crc} in the message, ${r.crc} rebuilt; snapshot dropped` });
      else if (r.status === 'missing-base')
        changes.issues.push({ kind: 'missing-base', message: `tick ${m.tick}: no stored snapshot for base tick ${m.deltaTick}; asking for a full one` });
      else if (r.status === 'bad-delta') changes.issues.push({ kind: 'bad-delta', message: `tick ${m.tick}: ${r.error?.message ?? 'malformed delta'}` });
    }
    this.lastChanges = changes;
    return changes;
  }

  /** Items of the newest snapshot, as `"type:id"`. */
  *entityIds(): Iterable<string> {
    const s = this.current;
    if (s === undefined) return;
    for (let i = 0; i < s.numItems; i++) yield `${s.type(i)}:${s.id(i)}`;
  }

  /** An item of the newest snapshot by `"type:id"`: its type name and named fields (raw `data` for unknown types). */
  entity(id: string): MirroredEntity | undefined {
    const s = this.current;
    const m = /^(\d+):(\d+)$/.exec(id);
    if (s === undefined || m === null) return undefined;
    const i = s.indexOf(((Number(m[1]) & 0xffff) << 16) | (Number(m[2]) & 0xffff));
    if (i < 0 || Number(m[1]) > 0x7fff || Number(m[2]) > 0xffff) return undefined;
    const t = typedItem(this.version, s, i, this.declarations);
    return { type: t.typeName, fields: t.fields ?? { data: t.data } };
  }

  private diff(prev: Snapshot, next: Snapshot, tick: number): MirrorChanges {
    const out = noChanges(tick);
    for (let i = 0; i < prev.numItems; i++) if (!next.has(prev.keys[i]!)) out.removed.push(`${prev.type(i)}:${prev.id(i)}`);
    const pData = prev.data;
    const nData = next.data;
    for (let i = 0; i < next.numItems; i++) {
      const key = next.keys[i]!;
      const j = prev.indexOf(key);
      const type = key >>> 16;
      const id = `${type}:${key & 0xffff}`;
      if (j < 0 || prev.size(j) !== next.size(i)) {
        out.created.push(id);
        continue;
      }
      const a = prev.offsets[j]!;
      const b = next.offsets[i]!;
      const n = next.size(i);
      let names: string[] | undefined;
      for (let k = 0; k < n; k++) {
        if (pData[a + k] === nData[b + k]) continue;
        const name = this.fieldAt(type, k, n);
        if (names === undefined) names = [name];
        else if (names[names.length - 1] !== name) names.push(name);
      }
      if (names !== undefined) out.updated.set(id, names);
    }
    return out;
  }

  // Fields of each type (name and ints) by field table and declarations, cached per type.
  private fieldSpecs: Map<number, { uuid: string | undefined; known: boolean; fields: [string, number][] }> | undefined = undefined;

  /** Name of int `k` of an item of `type` with `size` ints, as `itemFields` names it. */
  private fieldAt(type: number, k: number, size: number): string {
    const uuid = type >= 0x4000 ? this.declarations.get(type) : undefined;
    const specs = (this.fieldSpecs ??= new Map());
    let e = specs.get(type);
    if (e === undefined || e.uuid !== uuid) {
      const info = itemTypeInfo(this.version, type, this.declarations);
      const fields: [string, number][] = [];
      for (const spec of info.fields) {
        const m = /^([A-Za-z0-9_]+)(?::[sa](\d+)(?:x(\d+))?)?$/.exec(spec)!;
        fields.push([m[1]!, m[2] === undefined ? 1 : Number(m[2]) * (m[3] === undefined ? 1 : Number(m[3]))]);
      }
      e = { uuid, known: info.known, fields };
      specs.set(type, e);
    }
    if (!e.known) return 'data';
    if (type === 0 && size === 4) return 'uuid';
    let p = 0;
    for (const [name, total] of e.fields) {
      if (p + total > size) break;
      if (k < p + total) return name;
      p += total;
    }
    return 'extra';
  }

  /** Forget everything (e.g. on reconnect or map change). */
  reset(): void {
    this.storage.clear();
    this.declarations.clear();
    this.declInts?.clear();
    this.recvTick = -1;
    this.parts = [];
    this.received = 0;
    this.numParts = 0;
    this.lastAckedTick = -1;
    this.ackTick = -1;
    this.crcErrors = 0;
    this.current = undefined;
    this.currentTick = -1;
    this.lastResult = undefined;
    this.lastChanges = noChanges();
  }
}

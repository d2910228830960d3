/**
 * Teeworlds / DDNet adapter for the CLI and the inspector.
 *
 * decode: input is snapshot messages as they sit in a chunk (varint message id
 * with the system flag, then the fields and data), one per line with --stream;
 * state carries over (bases, slice reassembly). One record per completed
 * snapshot.
 * encode: JSON records of snapshots (as decode prints them, or `{tick, items}`
 * with optional `ackTick`) → the messages the server-side producer sends.
 */
import { DecodeError, EncodeError } from '../core/index.js';
import type { SpanSink } from '../core/index.js';
import {
  describeDelta,
  decodeInts,
  extTypeDeclarations,
  intOffsets,
  itemDataFromFields,
  itemTypeInfo,
  Snapshot,
  SnapshotBuilder,
  SnapshotProducer,
  SnapshotReceiver,
  STATIC_SIZES,
  typedItem,
  type ReceiveResult,
  type TwVersion,
  type TypedItem,
  type VarintMode,
} from '../protocols/teeworlds/index.js';
import { teeworldsNetExtras } from './teeworlds-net.js';
import { teeworldsDemoExtras } from './teeworlds-demo.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, OptionValues, StreamDecoder, StreamEncoder } from './types.js';

function versionOf(opts: OptionValues): TwVersion {
  const v = opts.version;
  return v === '0.6' || v === '0.7' || v === 'ddnet' ? v : 'ddnet';
}

function intOption(opts: OptionValues, name: string, def: number): number {
  const v = opts[name];
  if (v === undefined || v === '' || typeof v === 'boolean') return def;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1) throw new EncodeError(`--${name}`, `must be a positive integer, got ${JSON.stringify(v)}`);
  return n;
}

/** The JSON record printed for each completed (or failed) snapshot. */
export interface TeeworldsSnapshotRecord {
  tick: number;
  deltaTick: number;
  kind: string;
  numParts: number;
  /** `ok`, `crc-error`, `missing-base` or `bad-delta`. */
  status: string;
  crc: number;
  crcOk: boolean;
  numDeleted?: number;
  numUpdated?: number;
  numItems?: number;
  deleted?: { type: number; id: number }[];
  items?: TypedItem[];
  error?: string;
}

class TeeworldsDecoder implements StreamDecoder {
  private readonly rx: SnapshotReceiver;
  private readonly version: TwVersion;
  private readonly mode: VarintMode;
  private prev: Snapshot = Snapshot.EMPTY;
  private cur: Snapshot = Snapshot.EMPTY;
  private removedKeys: number[] = [];

  constructor(opts: OptionValues) {
    this.version = versionOf(opts);
    const mode: VarintMode = opts.varint === 'vanilla' ? 'vanilla' : 'ddnet';
    this.mode = mode;
    const partSize = Number(opts['part-size'] ?? 900);
    if (!Number.isInteger(partSize) || partSize < 1) throw new DecodeError(0, '--part-size', 'a positive integer', JSON.stringify(opts['part-size']));
    this.rx = new SnapshotReceiver(this.version, { mode, partSize });
  }

  decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
    const r = this.rx.receiveBytes(bytes, spans);
    if (r.status === 'partial' || r.status === 'ignored') return { records: [] };
    return this.record(r);
  }

  private record(r: ReceiveResult): DecodedMessage {
    const m = r.message;
    const rec: TeeworldsSnapshotRecord = {
      tick: m.tick,
      deltaTick: m.deltaTick,
      kind: m.kind,
      numParts: m.numParts,
      status: r.status === 'complete' ? 'ok' : r.status,
      crc: m.crc,
      crcOk: r.status === 'complete',
    };
    const out: DecodedMessage = { records: [rec] };
    const sizes = STATIC_SIZES[this.version];
    const blob = r.delta;
    if (blob !== undefined && blob.length > 0 && (r.status === 'complete' || r.status === 'crc-error')) {
      // Layout of the delta, for counts and the inspector's per-item byte ranges.
      const ints = decodeInts(blob, 0, blob.length, this.mode);
      const layout = describeDelta(ints, sizes);
      rec.numDeleted = layout.numDeleted;
      rec.numUpdated = layout.numUpdated;
      rec.deleted = layout.deleted.map((k) => ({ type: k >>> 16, id: k & 0xffff }));
      const pos = intOffsets(blob);
      const ents: EntityByteRange[] = [];
      for (const d of layout.records) ents.push({ id: `${d.type}:${d.id}`, start: pos[d.start]!, end: pos[d.end]!, layer: 'delta' });
      out.entities = ents;
      out.layers = { delta: blob };
    } else if (r.status === 'complete') {
      rec.numDeleted = 0;
      rec.numUpdated = 0;
    }
    if (r.status === 'bad-delta' && r.error !== undefined) rec.error = r.error.message;
    if (r.status === 'missing-base') rec.error = `no stored snapshot for base tick ${m.deltaTick}`;
    const snap = r.snapshot;
    if (snap !== undefined) {
      if (r.status === 'crc-error') rec.error = `CRC mismatch: message ${m.crc}, rebuilt snapshot ${r.crc}`;
      const decls = extTypeDeclarations(snap, new Map(this.rx.declarations));
      rec.numItems = snap.numItems;
      rec.items = [];
      for (let i = 0; i < snap.numItems; i++) rec.items.push(typedItem(this.version, snap, i, decls));
      if (r.status === 'complete') this.track(snap);
    }
    return out;
  }

  private track(snap: Snapshot): void {
    this.prev = this.cur;
    this.cur = snap;
    this.removedKeys = [];
    for (let i = 0; i < this.prev.numItems; i++) if (!snap.has(this.prev.keys[i]!)) this.removedKeys.push(this.prev.keys[i]!);
  }

  state(): EntityTable {
    const rows: EntityRow[] = [];
    const decls = this.rx.declarations;
    for (let i = 0; i < this.cur.numItems; i++) {
      const t = typedItem(this.version, this.cur, i, decls);
      const key = this.cur.keys[i]!;
      const pi = this.prev.indexOf(key);
      const fields: Record<string, unknown> = t.fields ?? { data: t.data };
      let changed: string[];
      if (pi < 0) changed = Object.keys(fields);
      else {
        const old = typedItem(this.version, this.prev, pi, decls);
        const of: Record<string, unknown> = old.fields ?? { data: old.data };
        changed = Object.keys(fields).filter((k) => JSON.stringify(fields[k]) !== JSON.stringify(of[k]));
      }
      const row: EntityRow = { id: `${t.type}:${t.id}`, type: t.typeName, fields, changed };
      if (pi < 0) row.created = true;
      rows.push(row);
    }
    return { rows, removed: this.removedKeys.map((k) => `${k >>> 16}:${k & 0xffff}`) };
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function int(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw new EncodeError(path, `expected an int32, got ${JSON.stringify(v)}`);
  return v;
}

/** Build a snapshot from JSON items: `data` (raw ints) wins; otherwise `fields` by `typeName`/`type`. */
export function snapshotFromJson(version: TwVersion, items: unknown, path = 'items'): Snapshot {
  if (!Array.isArray(items)) throw new EncodeError(path, 'expected an array of items');
  const b = new SnapshotBuilder(); // the games' limits: 1023 items, 64 KiB
  const decls = new Map<number, string>();
  // declarations first, so that extended items given by fields can be resolved
  for (const it of items) {
    if (isObj(it) && it.type === 0 && typeof it.id === 'number' && isObj(it.fields) && typeof it.fields.uuid === 'string') decls.set(it.id, it.fields.uuid);
  }
  items.forEach((it, i) => {
    const p = `${path}[${i}]`;
    if (!isObj(it)) throw new EncodeError(p, 'expected an object');
    const type = int(it.type, `${p}.type`);
    const id = int(it.id, `${p}.id`);
    let data: number[];
    if (Array.isArray(it.data)) data = it.data.map((v, k) => int(v, `${p}.data[${k}]`));
    else if (isObj(it.fields)) {
      const info = itemTypeInfo(version, type, decls);
      if (!info.known) throw new EncodeError(p, `no field table for type ${type}; give "data"`);
      data = itemDataFromFields(info, it.fields, `${p}.fields`);
    } else throw new EncodeError(p, 'expected "data" (ints) or "fields"');
    b.add(type, id, data, p);
  });
  return b.finish();
}

class TeeworldsEncoder implements StreamEncoder {
  private readonly version: TwVersion;
  private readonly producer: SnapshotProducer;
  private readonly history = new Map<number, Snapshot>();

  constructor(opts: OptionValues) {
    this.version = versionOf(opts);
    this.producer = new SnapshotProducer(this.version, { partSize: intOption(opts, 'part-size', 900) });
    this.producer.addClient(0);
  }

  encode(json: unknown): Uint8Array[] {
    if (!isObj(json)) throw new EncodeError('', 'expected a JSON object');
    if (json.status !== undefined && json.status !== 'ok') return []; // a snapshot the decoder dropped
    if (json.ackTick !== undefined) this.producer.onInput(0, int(json.ackTick, 'ackTick'));
    if (json.items === undefined) {
      if (json.ackTick === undefined) throw new EncodeError('', 'expected "items" (a snapshot) or "ackTick" (an acknowledgement)');
      return [];
    }
    const tick = int(json.tick, 'tick');
    if (tick < 0) throw new EncodeError('tick', 'must be >= 0');
    const snap = snapshotFromJson(this.version, json.items);
    this.history.set(tick, snap);
    for (const t of this.history.keys()) if (t < tick - 1000) this.history.delete(t);
    if (json.deltaTick !== undefined) {
      // Reproduce a recorded message: delta against the given base.
      const deltaTick = int(json.deltaTick, 'deltaTick');
      const base = deltaTick === -1 ? Snapshot.EMPTY : this.history.get(deltaTick);
      if (base === undefined || deltaTick >= tick) throw new EncodeError('deltaTick', `no earlier snapshot of tick ${deltaTick} in the input`);
      return this.producer.encode(tick, deltaTick, base, snap).bytes;
    }
    const force = json.force === true;
    const out = this.producer.snap(0, tick, snap, force);
    return out === null ? [] : out.bytes;
  }
}

const SAMPLES = [
  { id: 'tw075', title: 'Teeworlds 0.7.5: full snapshot, delta with deletions, SNAPEMPTY chain', path: 'samples/teeworlds/tw075_live.hex', format: 'hex-lines' as const, options: { version: '0.7' } },
  { id: 'ddnet164', title: 'DDNet 16.4: UUID items before their declarations, one-item deltas', path: 'samples/teeworlds/ddnet164_live.hex', format: 'hex-lines' as const, options: { version: 'ddnet' } },
  { id: 'ddnet164-multipart', title: 'DDNet 16.4, 31 clients: a 3-part SNAP, then deltas', path: 'samples/teeworlds/ddnet164_multipart_live.hex', format: 'hex-lines' as const, options: { version: 'ddnet' } },
  { id: 'ddnet164-multipart-shuffled', title: 'The same with the SNAP parts reordered and duplicated', path: 'samples/teeworlds/ddnet164_multipart_shuffled.hex', format: 'hex-lines' as const, options: { version: 'ddnet' } },
];

export const teeworlds: FamilyAdapter = {
  name: 'teeworlds',
  aliases: ['tw', 'ddnet'],
  summary: 'Teeworlds 0.6 / 0.7 and DDNet snapshots: SNAP / SNAPSINGLE / SNAPEMPTY, deltas, CRC, typed items',
  options: {
    version: { type: 'string', description: 'protocol version', choices: ['0.6', '0.7', 'ddnet'], default: 'ddnet' },
    varint: { type: 'string', description: 'how the 5th byte of a varint is read', choices: ['ddnet', 'vanilla'], default: 'ddnet' },
    'part-size': { type: 'string', description: 'snapshot part size in bytes', default: '900' },
    ...teeworldsNetExtras.options,
    ...teeworldsDemoExtras.options,
  },
  createDecoder: (opts) => new TeeworldsDecoder(opts),
  createEncoder: (opts) => teeworldsDemoExtras.encoder(opts, versionOf(opts), snapshotFromJson) ?? new TeeworldsEncoder(opts),
  samples: SAMPLES,
  decodeFile: (bytes, opts) => teeworldsDemoExtras.decodeFile(bytes, opts) ?? teeworldsNetExtras.decodeFile?.(bytes, opts),
  ...(teeworldsNetExtras.watch ? { watch: teeworldsNetExtras.watch } : {}),
};

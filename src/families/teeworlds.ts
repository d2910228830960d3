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
import { DecodeError, EncodeError, excerpt } from '../core/index.js';
import { SpanSink, type Span } from '../core/index.js';
import {
  MAX_SNAPSHOT_PACKSIZE,
  describeDelta,
  decodeInts,
  decodeSnapMessage,
  extTypeDeclarations,
  declarationsWith,
  intOffsets,
  itemDataFromFields,
  itemFields,
  itemTypeInfo,
  type ItemTypeInfo,
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
import { DeltaSpanLog, type SpanAdder, snapshotSpans } from './teeworlds-spans.js';
import { teeworldsNetExtras } from './teeworlds-net.js';
import { teeworldsDemoExtras } from './teeworlds-demo.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, OptionValues, StreamDecoder, StreamEncoder } from './types.js';

/** The version given with `--version`, or undefined (then it is detected from the input). */
function givenVersion(opts: OptionValues): TwVersion | undefined {
  const v = opts.version;
  return v === '0.6' || v === '0.7' || v === 'ddnet' ? v : undefined;
}

/**
 * `--part-size`: an integer in 1..MAX_SNAPSHOT_PACKSIZE (900, the most a Teeworlds server puts in one part; the
 * client places part N at N * 900), the default when absent; empty or anything else is refused (decode and encode).
 */
function partSizeOption(opts: OptionValues): number {
  const v = opts['part-size'];
  if (v === undefined) return MAX_SNAPSHOT_PACKSIZE;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > MAX_SNAPSHOT_PACKSIZE)
    throw new EncodeError('--part-size', `must be an integer in 1..${MAX_SNAPSHOT_PACKSIZE} (the most bytes of a Teeworlds snapshot part), got ${excerpt(v)}`);
  return n;
}

/** The JSON record printed for each completed (or failed) snapshot. */
export interface TeeworldsSnapshotRecord {
  /** Protocol version the messages were read as (given, or detected from the message ids). */
  version: TwVersion;
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

/**
 * Versions whose snapshot message ids and layout read `bytes` (0.6 and DDNet
 * share them: `ddnet` stands for both). Used to detect the version and to
 * suggest the right `--version`.
 */
export function snapMessageVersions(bytes: Uint8Array, mode: VarintMode = 'ddnet'): TwVersion[] {
  const out: TwVersion[] = [];
  for (const v of ['ddnet', '0.7'] as const) {
    try {
      decodeSnapMessage(bytes, v, { mode, maxParts: 1 << 20, maxPartSize: 1 << 20 });
      out.push(v);
    } catch {
      /* not this one */
    }
  }
  return out;
}

class TeeworldsDecoder implements StreamDecoder {
  /** Receivers of the versions still possible (one once the version is known). */
  private receivers: SnapshotReceiver[];
  private readonly fixed: boolean;
  private readonly mode: VarintMode;

  constructor(opts: OptionValues) {
    const mode: VarintMode = opts.varint === 'vanilla' ? 'vanilla' : 'ddnet';
    this.mode = mode;
    const partSize = partSizeOption(opts);
    const given = givenVersion(opts);
    this.fixed = given !== undefined;
    this.receivers = (given === undefined ? (['ddnet', '0.7'] as const) : [given]).map((v) => new SnapshotReceiver(v, { mode, partSize }));
  }

  private get rx(): SnapshotReceiver {
    return this.receivers[0]!;
  }

  decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
    if (this.receivers.length > 1) this.narrow(bytes);
    const outer = spans === undefined ? undefined : new SpanSink();
    const log = spans === undefined ? undefined : new DeltaSpanLog();
    try {
      this.rx.apply(bytes, outer, log);
    } catch (e) {
      throw this.fixed && e instanceof DecodeError ? this.withHint(e, bytes) : e;
    }
    const r = this.rx.lastResult!;
    if (r.status === 'partial' || r.status === 'ignored') return { records: [] };
    const out = this.record(r);
    if (spans !== undefined) this.spans(spans, outer!, log!, r, out.records[0] as TeeworldsSnapshotRecord);
    return out;
  }

  /** Version detection: keep the receivers whose version reads this message (the first one that does if none does). */
  private narrow(bytes: Uint8Array): void {
    const ok = snapMessageVersions(bytes, this.mode);
    const left = this.receivers.filter((rx) => ok.includes(rx.version));
    if (left.length === 0) return; // nobody reads it: the first candidate reports the error
    // several still read it: feed the others too, drop those whose snapshot fails
    if (left.length > 1) {
      for (const rx of left.slice(1)) {
        const st = rx.receiveBytes(bytes).status;
        if (st === 'bad-delta' || st === 'crc-error') left.splice(left.indexOf(rx), 1);
      }
    }
    this.receivers = left;
  }

  private withHint(e: DecodeError, bytes: Uint8Array): DecodeError {
    const other = snapMessageVersions(bytes, this.mode).filter((v) => v !== (this.rx.version === '0.6' ? 'ddnet' : this.rx.version));
    if (other.length === 0) return e;
    const v = other[0] === 'ddnet' ? (this.rx.version === '0.7' ? '0.6 or ddnet' : 'ddnet') : other[0]!;
    return new DecodeError(
      e.offset,
      e.path,
      e.expected,
      `${e.found ?? ''} — this reads as a ${v} snapshot message: try --version ${other[0] === 'ddnet' ? 'ddnet' : other[0]} (or leave --version out to detect it)`,
    );
  }

  private record(r: ReceiveResult): DecodedMessage {
    const m = r.message;
    const rx = this.rx;
    const rec: TeeworldsSnapshotRecord = {
      version: rx.version,
      tick: m.tick,
      deltaTick: m.deltaTick,
      kind: m.kind,
      numParts: m.numParts,
      status: r.status === 'complete' ? 'ok' : r.status,
      crc: m.crc,
      crcOk: r.status === 'complete',
    };
    const out: DecodedMessage = { records: [rec] };
    const blob = r.delta;
    if (blob !== undefined && blob.length > 0 && (r.status === 'complete' || r.status === 'crc-error')) {
      // Layout of the delta, for counts and the inspector's per-item byte ranges.
      const ints = decodeInts(blob, 0, blob.length, this.mode);
      const layout = describeDelta(ints, STATIC_SIZES[rx.version]);
      rec.numDeleted = layout.numDeleted;
      rec.numUpdated = layout.numUpdated;
      rec.deleted = layout.deleted.map((k) => ({ type: k >>> 16, id: k & 0xffff }));
      const pos = intOffsets(blob);
      const ents: EntityByteRange[] = [];
      for (const d of layout.records) ents.push({ id: `${d.type}:${d.id}`, start: pos[d.start]!, end: pos[d.end]!, layer: 'delta' });
      out.entities = ents;
      out.layers = { delta: blob, ints: new Uint8Array(ints.buffer, ints.byteOffset, ints.length * 4) };
    } else if (r.status === 'complete') {
      rec.numDeleted = 0;
      rec.numUpdated = 0;
    }
    if (r.status === 'bad-delta' && r.error !== undefined) rec.error = r.error.message;
    if (r.status === 'missing-base') rec.error = `no stored snapshot for base tick ${m.deltaTick}`;
    const snap = r.snapshot;
    if (snap !== undefined) {
      if (r.status === 'crc-error') rec.error = `CRC mismatch: message ${m.crc}, rebuilt snapshot ${r.crc}`;
      const decls = declarationsWith(snap, rx.declarations);
      rec.numItems = snap.numItems;
      rec.items = [];
      for (let i = 0; i < snap.numItems; i++) rec.items.push(typedItem(rx.version, snap, i, decls));
    }
    return out;
  }

  /** Spans whose paths are the record's: the message fields, then every delta int at the field it changes. */
  private spans(sink: SpanSink, outer: SpanSink, log: DeltaSpanLog, r: ReceiveResult, rec: TeeworldsSnapshotRecord): void {
    const add: SpanAdder = (path, start, end, kind, layer) => {
      const sp: Span = { start, end, path, kind };
      if (layer !== undefined) sp.layer = layer;
      if (sink.record !== undefined) sp.record = sink.record;
      sink.spans.push(sp);
    };
    snapshotSpans(add, outer.spans, log, r.delta, r.snapshot, rec, this.rx.version, this.rx.declarations);
  }

  state(): EntityTable {
    const rx = this.rx;
    const cur = rx.current ?? Snapshot.EMPTY;
    const ch = rx.lastChanges;
    const created = new Set(ch.created);
    const rows: EntityRow[] = [];
    for (let i = 0; i < cur.numItems; i++) {
      const t = typedItem(rx.version, cur, i, rx.declarations);
      const id = `${t.type}:${t.id}`;
      const fields: Record<string, unknown> = t.fields ?? { data: t.data };
      const row: EntityRow = { id, type: t.typeName, fields, changed: created.has(id) ? Object.keys(fields) : (ch.updated.get(id) ?? []) };
      if (created.has(id)) row.created = true;
      rows.push(row);
    }
    return { rows, removed: ch.removed };
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function int(v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < -2147483648 || v > 2147483647) throw new EncodeError(path, `expected an int32, got ${excerpt(v)}`);
  return v;
}

/** Build a snapshot from JSON items: `data` (raw ints) wins; otherwise `fields` by `typeName`/`type`. */
export function snapshotFromJson(version: TwVersion, items: unknown, path = 'items', known?: Map<number, string>): Snapshot {
  if (!Array.isArray(items)) throw new EncodeError(path, `expected an array of items, got ${excerpt(items)}`);
  const b = new SnapshotBuilder(); // the games' limits: 1023 items, 64 KiB
  // declarations of earlier snapshots (as the decoder remembers them), then this one's
  const decls = known ?? new Map<number, string>();
  // declarations first, so that extended items given by fields can be resolved
  for (const it of items) {
    if (isObj(it) && it.type === 0 && typeof it.id === 'number' && isObj(it.fields) && typeof it.fields.uuid === 'string') decls.set(it.id, it.fields.uuid);
  }
  if (items.length > b.maxItems) throw new EncodeError(path, `at most ${b.maxItems} items, got ${items.length}`);
  for (let i = 0; i < items.length; i++) {
    const it: unknown = items[i];
    const p = `${path}[${i}]`;
    if (!isObj(it)) throw new EncodeError(p, `expected an object, got ${excerpt(it)}`);
    const type = int(it.type, `${p}.type`);
    const id = int(it.id, `${p}.id`);
    const info = itemTypeInfo(version, type, decls);
    let data: number[];
    if (it.data !== undefined) {
      if (!Array.isArray(it.data)) throw new EncodeError(`${p}.data`, `expected an array of ints, got ${excerpt(it.data)}`);
      if (it.data.length > 0x4000) throw new EncodeError(`${p}.data`, `at most ${0x4000} ints (64 KiB), got ${it.data.length}`);
      data = it.data.map((v, k) => int(v, `${p}.data[${k}]`));
    } else if (isObj(it.fields)) {
      if (!info.known) throw new EncodeError(p, `no field table for type ${type}; give "data"`);
      data = itemDataFromFields(info, it.fields, `${p}.fields`);
    } else throw new EncodeError(p, 'expected "data" (ints) or "fields"');
    // What the decoder will print must be what was given: fields, type name.
    if (it.fields !== undefined) checkFields(info, data, it.fields, `${p}.fields`);
    if (it.typeName !== undefined && it.typeName !== info.name) {
      throw new EncodeError(`${p}.typeName`, `type ${type} is ${excerpt(info.name)} here, got ${excerpt(it.typeName)}`);
    }
    b.add(type, id, data, p);
  }
  return b.finish();
}

/**
 * Every given field must be what the decoder prints for `data` (fields left
 * out are taken from the data). No recursion: field values are flat.
 */
function checkFields(info: ItemTypeInfo, data: number[], given: unknown, path: string): void {
  if (!isObj(given)) throw new EncodeError(path, `expected an object of named fields, got ${excerpt(given)}`);
  if (!info.known) throw new EncodeError(path, `no field table for this type; give "data" only`);
  const canon = itemFields(info, data) as Record<string, unknown>;
  for (const k of Object.keys(given)) {
    if (!Object.hasOwn(canon, k)) throw new EncodeError(`${path}.${k}`, `not a field of ${info.name} (or beyond the data)`);
    const a = canon[k];
    const b = given[k];
    let same = a === b;
    if (!same && Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
      same = true;
      for (let i = 0; i < a.length && same; i++) same = a[i] === b[i];
    }
    if (!same) throw new EncodeError(`${path}.${k}`, `${excerpt(b)} disagrees with the data (which gives ${excerpt(a)})`);
  }
}

/** Snapshots the encoder remembers as possible bases. */
const ENCODER_HISTORY = 256;

class TeeworldsEncoder implements StreamEncoder {
  private readonly given: TwVersion | undefined;
  private readonly partSize: number;
  private version: TwVersion | undefined;
  private producer: SnapshotProducer | undefined;
  private readonly history = new Map<number, Snapshot>();
  /** Extended type declarations seen so far (as the decoder's receiver keeps them). */
  private readonly decls = new Map<number, string>();

  constructor(opts: OptionValues) {
    this.given = givenVersion(opts);
    this.partSize = partSizeOption(opts);
  }

  /** The version: `--version`, else the records' own `version`, else ddnet; all records must agree. */
  private versionFor(json: Record<string, unknown>): TwVersion {
    const rv = json.version;
    if (rv !== undefined && rv !== '0.6' && rv !== '0.7' && rv !== 'ddnet')
      throw new EncodeError('version', `expected "0.6", "0.7" or "ddnet", got ${excerpt(rv)}`);
    if (this.given !== undefined && rv !== undefined && (rv === '0.7') !== (this.given === '0.7')) {
      throw new EncodeError('version', `the record was decoded as ${rv}, but --version is ${this.given}: try --version ${rv} (or leave --version out)`);
    }
    const v = this.given ?? rv ?? this.version ?? 'ddnet';
    if (this.version === undefined) {
      this.version = v;
      this.producer = new SnapshotProducer(v, { partSize: this.partSize });
      this.producer.addClient(0);
    } else if ((v === '0.7') !== (this.version === '0.7')) {
      throw new EncodeError('version', `a ${v} record in a ${this.version} stream`);
    }
    return this.version;
  }

  encode(json: unknown): Uint8Array[] {
    if (!isObj(json)) throw new EncodeError('', `expected a JSON object, got ${excerpt(json)}`);
    const version = this.versionFor(json);
    const producer = this.producer!;
    if (json.status !== undefined && json.status !== 'ok') return []; // a snapshot the decoder dropped
    if (json.ackTick !== undefined) producer.onInput(0, int(json.ackTick, 'ackTick'));
    if (json.items === undefined) {
      if (json.ackTick === undefined) throw new EncodeError('', 'expected "items" (a snapshot) or "ackTick" (an acknowledgement)');
      return [];
    }
    const tick = int(json.tick, 'tick');
    if (tick < 0) throw new EncodeError('tick', 'must be >= 0');
    const snap = snapshotFromJson(version, json.items, 'items', new Map(this.decls));
    extTypeDeclarations(snap, this.decls);
    this.history.delete(tick);
    this.history.set(tick, snap);
    for (const t of this.history.keys()) {
      if (this.history.size <= ENCODER_HISTORY && t >= tick - 1000) break;
      this.history.delete(t);
    }
    if (json.deltaTick !== undefined) {
      // Reproduce a recorded message: delta against the given base.
      const deltaTick = int(json.deltaTick, 'deltaTick');
      const base = deltaTick === -1 ? Snapshot.EMPTY : this.history.get(deltaTick);
      if (base === undefined || deltaTick >= tick) throw new EncodeError('deltaTick', `no earlier snapshot of tick ${deltaTick} in the input`);
      return producer.encode(tick, deltaTick, base, snap).bytes;
    }
    const force = json.force === true;
    const out = producer.produce(0, tick, snap, force);
    return out === null ? [] : out.bytes;
  }
}

const SAMPLES = [
  {
    id: 'tw075',
    title: 'Teeworlds 0.7.5: full snapshot, delta with deletions, SNAPEMPTY chain',
    path: 'samples/teeworlds/tw075_live.hex',
    format: 'hex-lines' as const,
    options: { version: '0.7' },
  },
  {
    id: 'ddnet164',
    title: 'DDNet 16.4: UUID items before their declarations, one-item deltas',
    path: 'samples/teeworlds/ddnet164_live.hex',
    format: 'hex-lines' as const,
    options: { version: 'ddnet' },
  },
  {
    id: 'ddnet164-multipart',
    title: 'DDNet 16.4, 31 clients: a 3-part SNAP, then deltas',
    path: 'samples/teeworlds/ddnet164_multipart_live.hex',
    format: 'hex-lines' as const,
    options: { version: 'ddnet' },
  },
  {
    id: 'ddnet164-multipart-shuffled',
    title: 'The same with the SNAP parts reordered and duplicated',
    path: 'samples/teeworlds/ddnet164_multipart_shuffled.hex',
    format: 'hex-lines' as const,
    options: { version: 'ddnet' },
  },
];

export const teeworlds: FamilyAdapter = {
  name: 'teeworlds',
  aliases: ['tw', 'ddnet'],
  summary: 'Teeworlds 0.6 / 0.7 and DDNet snapshots: SNAP / SNAPSINGLE / SNAPEMPTY, deltas, CRC, typed items',
  options: {
    version: {
      type: 'string',
      description: 'protocol version (default: detected from the message ids; encode: from the records, else ddnet)',
      choices: ['0.6', '0.7', 'ddnet'],
    },
    varint: { type: 'string', description: 'how the 5th byte of a varint is read', choices: ['ddnet', 'vanilla'], default: 'ddnet' },
    'part-size': { type: 'string', description: 'snapshot part size in bytes (1..900)', default: '900' },
    ...teeworldsNetExtras.options,
    ...teeworldsDemoExtras.options,
  },
  createDecoder: (opts) => new TeeworldsDecoder(opts),
  createEncoder: (opts) => teeworldsDemoExtras.encoder(opts, givenVersion(opts) ?? 'ddnet', snapshotFromJson) ?? new TeeworldsEncoder(opts),
  samples: SAMPLES,
  decodeFile: (bytes, opts, detail) => teeworldsDemoExtras.decodeFile(bytes, opts, detail) ?? teeworldsNetExtras.decodeFile?.(bytes, opts, detail),
  ...(teeworldsNetExtras.watch ? { watch: teeworldsNetExtras.watch } : {}),
};

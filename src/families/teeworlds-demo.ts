/**
 * Demo-file additions to the Teeworlds adapter: `decode teeworlds --demo FILE`
 * (also a `.demo` given as FILE) and `encode teeworlds --demo` (a JSON array of
 * the records `decode --demo` prints, or of snapshot records, in → one demo
 * file out). `teeworlds.ts` wires these in.
 *
 * Records: one `demo` record (the header, markers, map check), then per
 * snapshot the snapshot record the network decoder prints (`record:
 * 'snapshot'`, with `keyframe` and `crcStored: false`: the demo format keeps no
 * snapshot CRC, the one printed is the games' sum), and per message chunk a
 * `message` record (id, system flag, name, bytes).
 */
import { DecodeError, EncodeError, atPath, toHex, fromHex } from '../core/index.js';
import {
  DEMO_MAX_MARKERS,
  DemoWriter,
  demoEvents,
  decodeMessageHeader,
  isDemo,
  readDemoInfo,
  systemMessageName,
  itemTypeInfo,
  describeDelta,
  extTypeDeclarations,
  STATIC_SIZES,
  Snapshot,
  typedItem,
  type DemoInfo,
  type TwVersion,
  type TypedItem,
} from '../protocols/teeworlds/index.js';
import type { Span } from '../core/index.js';
import { DeltaSpanLog, fieldExists, fieldPaths, type SpanAdder, snapshotSpans } from './teeworlds-spans.js';
import { snapshotRecord } from './teeworlds-net.js';
import type { DecodedMessage, EntityRow, EntityTable, FamilyOption, FileDetail, OptionValues, StreamEncoder } from './types.js';

const options: Record<string, FamilyOption> = {
  demo: {
    type: 'boolean',
    description: 'decode: read FILE as a demo (.demo of Teeworlds 0.6 / 0.7 or DDNet); encode: write a demo from a JSON array of records',
  },
  map: {
    type: 'string',
    description: 'encode --demo: store this map file in the demo (records carry no map; its size and CRC32 go into the header)',
  },
};

/** The 260-byte marker block the writer makes from the marker list (unused slots zero). */
function plainMarkers(markers: number[]): Uint8Array {
  const m = new Uint8Array(4 + 4 * 64);
  const v = new DataView(m.buffer);
  v.setUint32(0, markers.length);
  markers.forEach((t, i) => v.setUint32(4 + 4 * i, t >>> 0));
  return m;
}

/** A JSON value shortened for an error message. */
function excerpt(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 40 ? `${s.slice(0, 40)}…` : s;
}

const sameBytes = (a: Uint8Array, b: Uint8Array): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export function demoHeaderRecord(info: DemoInfo): Record<string, unknown> {
  const h = info.header;
  const r: Record<string, unknown> = {
    record: 'demo',
    version: h.version,
    netVersion: h.netVersion,
    codec: info.codec,
    mapName: h.mapName,
    mapSize: h.mapSize,
    mapCrc: h.mapCrc,
    mapCrcOk: info.mapCrcOk ?? null,
    type: h.type,
    length: h.length,
    timestamp: h.timestamp,
    markers: info.markers,
  };
  if (info.mapSha256) r.mapSha256 = toHex(info.mapSha256);
  // Unused marker slots as stored when they are not zero (DDNet 16.4 leaves uninitialised memory there).
  if (info.markersRaw !== undefined && !sameBytes(info.markersRaw, plainMarkers(info.markers))) r.markersRaw = toHex(info.markersRaw);
  return r;
}

/** Spans of the header record: each field in the 176-byte header, markers, the SHA-256 extension, the map. */
function headerSpans(info: DemoInfo, rec: Record<string, unknown>): Span[] {
  const out: Span[] = [];
  const add = (path: string, start: number, end: number, kind: string) => {
    if (end > start) out.push({ path, start, end, kind });
  };
  add('version', 7, 8, 'u8');
  add('netVersion', 8, 72, 'string');
  add('codec', 8, 72, 'string');
  add('mapName', 72, 136, 'string');
  add('mapSize', 136, 140, 'u32be');
  add('mapCrc', 140, 144, 'u32be');
  add('type', 144, 152, 'string');
  add('length', 152, 156, 'u32be');
  add('timestamp', 156, 176, 'string');
  info.markers.forEach((_, i) => add(`markers[${i}]`, 180 + 4 * i, 184 + 4 * i, 'u32be'));
  if (rec.markersRaw !== undefined) add('markersRaw', 176, 436, 'bytes');
  let p = info.header.version >= 4 ? 436 : 176;
  if (info.mapSha256 !== undefined) {
    add('mapSha256', p + 16, p + 48, 'bytes');
    p += 48;
  }
  if (rec.mapCrcOk !== null) add('mapCrcOk', p, p + info.map.length, 'map');
  return out;
}

const intBytes = (ints: Int32Array) => new Uint8Array(ints.buffer, ints.byteOffset, ints.byteLength);

/** Spans of a whole snapshot chunk's record, in its ints (the games' memory layout: sizes, offsets, then key and data of each item). */
function keyframeSpans(ints: Int32Array, rec: { items?: TypedItem[] }, codec: TwVersion, decls: ReadonlyMap<number, string>): Span[] {
  const out: Span[] = [];
  const add = (path: string, int: number, n = 1) => out.push({ path, start: int * 4, end: (int + n) * 4, kind: 'i32', layer: 'ints' });
  add('numItems', 1);
  const n = ints[1]!;
  rec.items?.forEach((item, i) => {
    const keyAt = 2 + n + ints[2 + i]! / 4;
    const p = `items[${i}]`;
    for (const f of ['type', 'id', 'typeName', 'event', 'uuidName'] as const) if (item[f] !== undefined) add(`${p}.${f}`, keyAt);
    const fp = item.fields === undefined ? [] : fieldPaths(itemTypeInfo(codec, item.type, decls), item.data.length);
    item.data.forEach((_, k) => {
      add(`${p}.data[${k}]`, keyAt + 1 + k);
      const f = fp[k];
      if (f !== undefined && item.fields !== undefined && fieldExists(item.fields, f)) add(`${p}.fields.${f}`, keyAt + 1 + k);
      if (f === 'uuid' && item.fields?.uuidName !== undefined) add(`${p}.fields.uuidName`, keyAt + 1 + k);
    });
  });
  return out;
}

const sameData = (a: ArrayLike<number>, b: ArrayLike<number>): boolean => {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
};

/** The state table after a snapshot: its items, marked new or changed against the previous one. */
function tableOf(prev: Snapshot, snap: Snapshot, codec: TwVersion, decls: ReadonlyMap<number, string>): EntityTable {
  const rows: EntityRow[] = [];
  for (let i = 0; i < snap.numItems; i++) {
    const t = typedItem(codec, snap, i, decls);
    const fields: Record<string, unknown> = t.fields ?? { data: t.data };
    const row: EntityRow = { id: `${t.type}:${t.id}`, type: t.typeName, fields, changed: [] };
    const pi = prev.indexOf(snap.keys[i]!);
    if (pi < 0) {
      row.created = true;
      row.changed = Object.keys(fields);
    } else if (!sameData(prev.itemData(pi), snap.itemData(i))) {
      const o = typedItem(codec, prev, pi, decls);
      const of: Record<string, unknown> = o.fields ?? { data: o.data };
      row.changed = Object.keys(fields).filter((k) => JSON.stringify(fields[k]) !== JSON.stringify(of[k]));
    }
    rows.push(row);
  }
  const removed: string[] = [];
  for (let i = 0; i < prev.numItems; i++) if (snap.indexOf(prev.keys[i]!) < 0) removed.push(`${prev.type(i)}:${prev.id(i)}`);
  return { rows, removed };
}

/** A message with its spans and state when they are asked for (`FileDetail`). */
function detailed(fd: FileDetail, m: DecodedMessage, spans: () => Span[], state: () => EntityTable): DecodedMessage {
  if (fd.spans) m.spans = spans();
  if (fd.state) m.state = state();
  return m;
}

function* decodeDemo(bytes: Uint8Array, fd: FileDetail): Generator<DecodedMessage> {
  const info = readDemoInfo(bytes);
  const head = demoHeaderRecord(info);
  yield detailed(
    fd,
    { records: [head], bytes: bytes.subarray(0, info.chunksOffset) },
    () => headerSpans(info, head),
    () => ({ rows: [], removed: [] }),
  );
  let prevTick = -1;
  let prev = Snapshot.EMPTY;
  let table: EntityTable = { rows: [], removed: [] };
  // the same table with no row marked (the table itself when none is)
  const unmarked = (): EntityTable =>
    table.removed.length === 0 && table.rows.every((x) => x.changed.length === 0 && !x.created)
      ? table
      : { rows: table.rows.map((x) => (x.changed.length === 0 && !x.created ? x : { ...x, changed: [], created: false })), removed: [] };
  // Tick markers, as `tick` records: one with no data after it is an unchanged snapshot (0.7.5 writes those)
  const markers: DecodedMessage[] = [];
  const onTick = (t: { tick: number; keyframe: boolean; inline: boolean; offset: number; end: number }) => {
    const r = { record: 'tick', tick: t.tick, keyframe: t.keyframe, inline: t.inline, offset: t.offset };
    const spans = (): Span[] => [
      { path: 'keyframe', start: 0, end: 1, kind: 'flag' },
      { path: 'inline', start: 0, end: 1, kind: 'flag' },
      { path: 'tick', start: t.inline ? 0 : 1, end: t.end - t.offset, kind: t.inline ? 'delta' : 'u32be' },
    ];
    markers.push(detailed(fd, { records: [r], bytes: bytes.subarray(t.offset, t.end) }, spans, () => (table = unmarked())));
  };
  const demoOpts: Parameters<typeof demoEvents>[2] = { onTick };
  if (fd.spans) demoOpts.deltaSpans = () => new DeltaSpanLog();
  for (const e of demoEvents(bytes, info, demoOpts)) {
    yield* markers.splice(0);
    const chunk = bytes.subarray(e.offset, e.end);
    if (e.kind === 'message') {
      const r: Record<string, unknown> = { record: 'message', tick: e.tick, offset: e.offset };
      const spans: Span[] = []; // (a few per message: cheap enough to make always)
      try {
        const h = decodeMessageHeader(e.data, info.varint);
        r.system = h.system;
        r.id = h.id;
        if (h.system) {
          const name = systemMessageName(info.codec, h.id);
          if (name !== undefined) r.name = name;
        }
        // the header is one varint: its bytes run to the first without the continuation bit
        let n = 1;
        while (n < e.data.length && (e.data[n - 1]! & 0x80) !== 0) n++;
        for (const k of ['system', 'id', 'name']) if (r[k] !== undefined) spans.push({ path: k, start: 0, end: n, kind: 'varint', layer: 'message' });
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        r.error = err.message;
      }
      r.hex = toHex(e.data);
      if (e.data.length > 0) spans.push({ path: 'hex', start: 0, end: e.data.length, kind: 'bytes', layer: 'message' });
      // the state does not change: every row unmarked
      yield detailed(
        fd,
        { records: [r], layers: { message: e.data }, bytes: chunk },
        () => spans,
        () => (table = unmarked()),
      );
      continue;
    }
    const s = e.snapshot;
    const rec = snapshotRecord(
      {
        kind: e.kind === 'snapshot' ? 'demo-snapshot' : 'demo-delta',
        tick: e.tick,
        deltaTick: e.kind === 'snapshot' ? -1 : prevTick,
        crc: s.crc(),
        crcOk: true,
        numParts: 1,
        snapshot: s,
        codecVersion: info.codec,
      },
      undefined,
      { keyframe: e.keyframe, offset: e.offset, crcStored: false },
    );
    prevTick = e.tick;
    if (e.kind === 'delta') {
      // what the delta says besides the items: its header counts and the deleted keys
      const layout = describeDelta(e.ints, STATIC_SIZES[info.codec]);
      rec.numDeleted = layout.numDeleted;
      rec.numUpdated = layout.numUpdated;
      rec.deleted = layout.deleted.map((k) => ({ type: k >>> 16, id: k & 0xffff }));
    }
    const srec = rec as { kind: string; items?: TypedItem[] };
    const decls = fd.spans || fd.state ? extTypeDeclarations(s, new Map()) : undefined;
    const out: DecodedMessage = { records: [rec], bytes: chunk };
    if (fd.spans) {
      let spans: Span[];
      const layers: Record<string, Uint8Array> = { ints: intBytes(e.ints) };
      if (e.kind === 'snapshot') spans = keyframeSpans(e.ints, srec, info.codec, decls!);
      else {
        spans = [];
        const add: SpanAdder = (path, start, end, kind, layer) => void spans.push({ path, start, end, kind, layer: layer ?? 'delta' });
        snapshotSpans(add, [], e.deltaSpans as DeltaSpanLog | undefined, e.deltaBytes, s, srec, info.codec, decls!);
        if (e.deltaBytes !== undefined) layers.delta = e.deltaBytes;
      }
      out.spans = spans;
      out.layers = layers;
    }
    if (fd.state) out.state = table = tableOf(prev, s, info.codec, decls!);
    prev = s;
    yield out;
  }
  yield* markers.splice(0);
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `encode --demo`: the whole input is one JSON array; the output is one demo file. */
class DemoEncoder implements StreamEncoder {
  constructor(
    private readonly map: Uint8Array | undefined,
    private readonly version: TwVersion,
    private readonly snapshotFromJson: (version: TwVersion, items: unknown, path?: string) => Snapshot,
  ) {}

  encode(json: unknown): Uint8Array[] {
    if (!Array.isArray(json)) throw new EncodeError('', 'encode --demo takes one JSON array of records (as decode --demo --format json prints)');
    const hi = json.findIndex((r) => isObj(r) && r.record === 'demo');
    const head = hi < 0 ? undefined : (json[hi] as Record<string, unknown>);
    const hp = (k: string): string => `[${hi}].${k}`;
    const str = (k: string): string | undefined => {
      const v = head?.[k];
      if (v === undefined) return undefined;
      if (typeof v !== 'string') throw new EncodeError(hp(k), `expected a string, got ${excerpt(v)}`);
      return v;
    };
    /** An integer in lo..hi at `path`, as the decoder prints it (`undefined` when absent). */
    const int = (v: unknown, path: string, lo: number, hi: number): number | undefined => {
      if (v === undefined) return undefined;
      if (typeof v !== 'number' || !Number.isInteger(v) || v < lo || v > hi) throw new EncodeError(path, `expected an integer ${lo}..${hi}, got ${excerpt(v)}`);
      return v;
    };
    const hex = (v: string, path: string, bytes?: number): Uint8Array => {
      let b: Uint8Array;
      try {
        b = fromHex(v);
      } catch {
        throw new EncodeError(path, `expected hex bytes, got ${excerpt(v)}`);
      }
      if (bytes !== undefined && b.length !== bytes) throw new EncodeError(path, `expected ${bytes} bytes (${2 * bytes} hex digits), got ${b.length}`);
      return b;
    };
    const codec = (str('codec') as TwVersion | undefined) ?? this.version;
    if (codec !== '0.6' && codec !== '0.7' && codec !== 'ddnet') throw new EncodeError(hi < 0 ? 'codec' : hp('codec'), 'one of 0.6, 0.7, ddnet');
    const opts: ConstructorParameters<typeof DemoWriter>[0] = { codec };
    if (head !== undefined) {
      const version = int(head.version, hp('version'), 3, 6);
      if (version !== undefined) opts.version = version;
      const nv = str('netVersion');
      if (nv !== undefined) opts.netVersion = nv;
      const mn = str('mapName');
      if (mn !== undefined) opts.mapName = mn;
      const crc = int(head.mapCrc, hp('mapCrc'), 0, 0xffffffff);
      if (crc !== undefined) opts.mapCrc = crc;
      if (str('type') === 'client' || str('type') === 'server') opts.type = str('type') as 'client' | 'server';
      const ts = str('timestamp');
      if (ts !== undefined) opts.timestamp = ts;
      if (head.markers !== undefined) {
        const m = head.markers;
        if (!Array.isArray(m)) throw new EncodeError(hp('markers'), `expected an array of ticks, got ${excerpt(m)}`);
        if (m.length > DEMO_MAX_MARKERS) throw new EncodeError(hp('markers'), `expected at most ${DEMO_MAX_MARKERS} markers, got ${m.length}`);
        opts.markers = m.map((t, k) => int(t, `${hp('markers')}[${k}]`, 0, 0xffffffff)!);
      }
      // (the SHA-256 extension is version 6's, the marker block version 4's and later: the decoder prints them only there)
      const v = opts.version ?? (codec === '0.7' ? 5 : codec === 'ddnet' ? 6 : 4);
      const sha = str('mapSha256');
      if (sha !== undefined) {
        opts.mapSha256 = hex(sha, hp('mapSha256'), 32);
        if (v < 6) throw new EncodeError(hp('mapSha256'), `a map SHA-256 is stored only in a version 6 demo, not version ${v}`);
      }
      const raw = str('markersRaw');
      if (raw !== undefined) {
        opts.markersRaw = hex(raw, hp('markersRaw'), 4 + 4 * DEMO_MAX_MARKERS);
        if (v < 4) throw new EncodeError(hp('markersRaw'), 'a version 3 demo has no marker block');
      }
    }
    if (this.map !== undefined) {
      opts.map = this.map;
      delete opts.mapCrc; // the CRC32 of the stored map
    }
    const w = new DemoWriter(opts);
    // the writer's errors name a field (`tick`, `timestamp`): put the record's index in front
    const at = <T>(path: string, fn: () => T): T => {
      try {
        return fn();
      } catch (e) {
        throw atPath(e, path);
      }
    };
    const tickOf = (v: unknown, path: string): number => {
      if (v === undefined) throw new EncodeError(path, 'expected a tick (an integer 0..2147483647)');
      return int(v, path, 0, 0x7fffffff)!;
    };
    // A tick record not followed by a snapshot of its tick: an unchanged snapshot (a tick marker with no data).
    let pending: number | undefined;
    let pendingAt = '';
    let last: Snapshot | undefined;
    const flush = () => {
      const l = last;
      if (pending !== undefined && l !== undefined) at(pendingAt, () => w.snapshot(pending!, l));
      pending = undefined;
    };
    json.forEach((r, i) => {
      if (!isObj(r) || r.record === 'demo') return;
      const path = `[${i}]`;
      if (r.record === 'tick') {
        const t = tickOf(r.tick, `${path}.tick`);
        flush();
        pending = t;
        pendingAt = path;
        return;
      }
      if (r.items !== undefined && typeof r.tick === 'number' && r.tick === pending) pending = undefined;
      flush();
      if (r.record === 'message') {
        if (typeof r.hex !== 'string') throw new EncodeError(`${path}.hex`, 'a message record needs "hex"');
        const data = hex(r.hex, `${path}.hex`);
        const t = r.tick === undefined ? undefined : tickOf(r.tick, `${path}.tick`);
        at(path, () => w.message(data, t));
        return;
      }
      if (r.items === undefined) return;
      const t = tickOf(r.tick, `${path}.tick`);
      last = this.snapshotFromJson(codec, r.items, `${path}.items`);
      const l = last;
      at(path, () => w.snapshot(t, l));
    });
    flush();
    return [at(hi < 0 ? '' : `[${hi}]`, () => w.finish())];
  }
}

export const teeworldsDemoExtras = {
  options,
  /** Demo decoding when `--demo` is given or the file starts with the demo magic; otherwise undefined. */
  decodeFile(bytes: Uint8Array, opts: OptionValues, detail?: FileDetail): Iterable<DecodedMessage> | undefined {
    if (opts.demo !== true && !isDemo(bytes)) return undefined;
    return decodeDemo(bytes, detail ?? { spans: true, state: true });
  },
  /** The demo encoder when `--demo` is given; otherwise undefined. */
  encoder(
    opts: OptionValues,
    version: TwVersion,
    snapshotFromJson: (version: TwVersion, items: unknown, path?: string) => import('../protocols/teeworlds/index.js').Snapshot,
  ): StreamEncoder | undefined {
    if (opts.demo !== true) return undefined;
    let map: Uint8Array | undefined;
    if (typeof opts.map === 'string') {
      // Node only (no static node:fs import below cli/ and web/: the page bundles this file)
      const proc = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
      const fs = proc?.getBuiltinModule?.('node:fs') as { readFileSync(p: string): Uint8Array } | undefined;
      if (fs === undefined) throw new EncodeError('--map', 'reading a map file needs Node');
      try {
        map = new Uint8Array(fs.readFileSync(opts.map));
      } catch (e) {
        throw new EncodeError('--map', `cannot read ${opts.map}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
    }
    return new DemoEncoder(map, version, snapshotFromJson);
  },
};

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
import { DecodeError, EncodeError, toHex, fromHex } from '../core/index.js';
import {
  DemoWriter,
  demoEvents,
  decodeMessageHeader,
  isDemo,
  readDemoInfo,
  systemMessageName,
  type DemoInfo,
  type TwVersion,
} from '../protocols/teeworlds/index.js';
import { snapshotRecord } from './teeworlds-net.js';
import type { DecodedMessage, FamilyOption, OptionValues, StreamEncoder } from './types.js';

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

function* decodeDemo(bytes: Uint8Array): Generator<DecodedMessage> {
  const info = readDemoInfo(bytes);
  yield { records: [demoHeaderRecord(info)] };
  let prevTick = -1;
  for (const e of demoEvents(bytes, info)) {
    if (e.kind === 'message') {
      const r: Record<string, unknown> = { record: 'message', tick: e.tick, offset: e.offset };
      try {
        const h = decodeMessageHeader(e.data, info.varint);
        r.system = h.system;
        r.id = h.id;
        if (h.system) {
          const name = systemMessageName(info.codec, h.id);
          if (name !== undefined) r.name = name;
        }
      } catch (err) {
        if (!(err instanceof DecodeError)) throw err;
        r.error = err.message;
      }
      r.hex = toHex(e.data);
      yield { records: [r], layers: { message: e.data } };
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
    yield { records: [rec] };
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** `encode --demo`: the whole input is one JSON array; the output is one demo file. */
class DemoEncoder implements StreamEncoder {
  constructor(
    private readonly map: Uint8Array | undefined,
    private readonly version: TwVersion,
    private readonly snapshotFromJson: (version: TwVersion, items: unknown, path?: string) => import('../protocols/teeworlds/index.js').Snapshot,
  ) {}

  encode(json: unknown): Uint8Array[] {
    if (!Array.isArray(json)) throw new EncodeError('', 'encode --demo takes one JSON array of records (as decode --demo --format json prints)');
    const head = json.find((r) => isObj(r) && r.record === 'demo') as Record<string, unknown> | undefined;
    const str = (k: string): string | undefined => (head !== undefined && typeof head[k] === 'string' ? (head[k] as string) : undefined);
    const codec = (str('codec') as TwVersion | undefined) ?? this.version;
    if (codec !== '0.6' && codec !== '0.7' && codec !== 'ddnet') throw new EncodeError('codec', 'one of 0.6, 0.7, ddnet');
    const opts: ConstructorParameters<typeof DemoWriter>[0] = { codec };
    if (head !== undefined) {
      if (typeof head.version === 'number') opts.version = head.version;
      const nv = str('netVersion');
      if (nv !== undefined) opts.netVersion = nv;
      const mn = str('mapName');
      if (mn !== undefined) opts.mapName = mn;
      if (typeof head.mapCrc === 'number') opts.mapCrc = head.mapCrc;
      if (str('type') === 'client' || str('type') === 'server') opts.type = str('type') as 'client' | 'server';
      const ts = str('timestamp');
      if (ts !== undefined) opts.timestamp = ts;
      if (Array.isArray(head.markers)) opts.markers = head.markers.filter((m): m is number => typeof m === 'number');
      const sha = str('mapSha256');
      if (sha !== undefined) opts.mapSha256 = fromHex(sha);
      const raw = str('markersRaw');
      if (raw !== undefined) opts.markersRaw = fromHex(raw);
    }
    if (this.map !== undefined) {
      opts.map = this.map;
      delete opts.mapCrc; // the CRC32 of the stored map
    }
    const w = new DemoWriter(opts);
    json.forEach((r, i) => {
      if (!isObj(r) || r.record === 'demo') return;
      const path = `[${i}]`;
      if (r.record === 'message') {
        if (typeof r.hex !== 'string') throw new EncodeError(path, 'a message record needs "hex"');
        w.message(fromHex(r.hex), typeof r.tick === 'number' ? r.tick : undefined);
        return;
      }
      if (r.items === undefined) return;
      if (typeof r.tick !== 'number') throw new EncodeError(`${path}.tick`, 'a number');
      w.snapshot(r.tick, this.snapshotFromJson(codec, r.items, `${path}.items`));
    });
    return [w.finish()];
  }
}

export const teeworldsDemoExtras = {
  options,
  /** Demo decoding when `--demo` is given or the file starts with the demo magic; otherwise undefined. */
  decodeFile(bytes: Uint8Array, opts: OptionValues): Iterable<DecodedMessage> | undefined {
    if (opts.demo !== true && !isDemo(bytes)) return undefined;
    return decodeDemo(bytes);
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
        throw new EncodeError('--map', `cannot read ${opts.map}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return new DemoEncoder(map, version, snapshotFromJson);
  },
};

/**
 * The WoW 1.12.1 adapter for the CLI and the inspector: whole server frames
 * (SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT, SMSG_DESTROY_OBJECT) by
 * default, the bare uncompressed body with `--body`. The decoder keeps an
 * object store, so VALUES blocks are typed with the type from earlier creates.
 */
import { DecodeError, EncodeError, type SpanSink } from '../core/index.js';
import {
  ObjectStore,
  bodyFromJson,
  bodyToJson,
  decodeBody,
  decodePacketDetailed,
  encodeBody,
  encodePacket,
  fieldAt,
  floatToJson,
  guidHex,
  packetFromJson,
  packetToJson,
  typedFields,
  typeIdFromGuid,
  type FieldValue,
  type GuidRange,
  type MovementGuidWidth,
  type ServerPacket,
  type StoreEvent,
  type WowDecodeOptions,
  type WowObject,
} from '../protocols/wow/index.js';
import { decodeWowCaptureFile, wowCaptureOptions } from './wow-capture.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, OptionValues } from './types.js';

function jsonField(v: FieldValue, isFloat: boolean): unknown {
  if (typeof v === 'bigint') return guidHex(v);
  if (typeof v === 'number') return isFloat ? floatToJson(v) : v;
  return v.map((x) => jsonField(x as FieldValue, isFloat));
}

function rowFields(o: WowObject): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const m = o.movement;
  const pos = m.movementInfo ?? m.position;
  if (pos !== undefined) out.position = { x: floatToJson(pos.x), y: floatToJson(pos.y), z: floatToJson(pos.z), o: floatToJson(pos.o) };
  for (const [k, v] of Object.entries(typedFields(o.typeId, o.values))) {
    const f = k.startsWith('slot') ? undefined : o.fieldDef(k);
    out[k] = jsonField(v, f?.type === 'float');
  }
  return out;
}

function changedNames(o: WowObject, slots: Iterable<number>): string[] {
  const names = new Set<string>();
  for (const s of slots) names.add(fieldAt(o.typeId, s)?.name ?? `slot${s}`);
  return [...names];
}

function movementGuid(opts: OptionValues): MovementGuidWidth {
  return opts['movement-guid'] === 'packed' ? 'packed' : 'u64';
}

class WowStreamDecoder {
  readonly store = new ObjectStore();
  private changed = new Map<bigint, Set<number>>();
  private created = new Set<bigint>();
  private removed: bigint[] = [];
  constructor(private readonly opts: OptionValues) {}

  decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
    const ranges: GuidRange[] = [];
    // Types come from earlier creates; the guid's high part is only a fallback for naming (§3.2).
    const typeOf = (g: bigint) => this.store.typeOf(g) ?? typeIdFromGuid(g);
    const dopts: WowDecodeOptions = { movementBlockGuid: movementGuid(this.opts), typeOf, ranges };
    if (spans !== undefined) dopts.spans = spans;
    let record: unknown;
    let events: StoreEvent[];
    const entities: EntityByteRange[] = [];
    let layers: Record<string, Uint8Array> | undefined;
    if (this.opts.body === true) {
      const body = decodeBody(bytes, dopts);
      record = bodyToJson(body, { typeOf, length: bytes.length });
      events = this.store.applyBody(body);
      for (const r of ranges) entities.push({ id: guidHex(r.guid), start: r.start, end: r.end });
    } else {
      const d = decodePacketDetailed(bytes, dopts);
      const info: { size: number; bodyLength?: number } = { size: d.size };
      if (d.body !== undefined) info.bodyLength = d.body.length;
      record = packetToJson(d.packet, info, { typeOf });
      events = this.store.apply(d.packet);
      if (d.bodyOffset < 0 && d.body !== undefined) {
        layers = { zlib: d.body };
        for (const r of ranges) entities.push({ id: guidHex(r.guid), start: r.start, end: r.end, layer: 'zlib' });
      } else {
        // offsets are already in the frame (the body was read in place)
        for (const r of ranges) entities.push({ id: guidHex(r.guid), start: r.start, end: r.end });
      }
    }
    this.track(events);
    const problems: string[] = [];
    for (const e of events) if (e.kind === 'problem') problems.push(e.block >= 0 ? `blocks[${e.block}]: ${e.message}` : e.message);
    if (problems.length > 0) (record as Record<string, unknown>).problems = problems;
    const out: DecodedMessage = { records: [record], entities };
    if (layers !== undefined) out.layers = layers;
    return out;
  }

  private track(events: StoreEvent[]): void {
    this.changed = new Map();
    this.created = new Set();
    this.removed = [];
    for (const e of events) {
      if (e.kind === 'create') {
        this.created.add(e.guid);
        this.changed.set(e.guid, new Set(e.object.changed));
      } else if (e.kind === 'values') {
        const s = this.changed.get(e.guid) ?? new Set<number>();
        for (const x of e.changed) s.add(x);
        this.changed.set(e.guid, s);
      } else if (e.kind === 'movement') {
        if (!this.changed.has(e.guid)) this.changed.set(e.guid, new Set());
      } else if (e.kind === 'remove') {
        this.removed.push(e.guid);
        this.changed.delete(e.guid);
        this.created.delete(e.guid);
      }
    }
  }

  state(): EntityTable {
    const rows: EntityRow[] = [];
    for (const o of this.store.objects.values()) {
      const ch = this.changed.get(o.guid);
      const created = this.created.has(o.guid);
      const row: EntityRow = { id: guidHex(o.guid), type: o.type?.name ?? `type ${o.typeId}`, fields: rowFields(o), changed: [] };
      if (created) {
        row.created = true;
        row.changed = Object.keys(row.fields);
      } else if (ch !== undefined) {
        row.changed = changedNames(o, ch);
      }
      rows.push(row);
    }
    return { rows, removed: this.removed.map(guidHex) };
  }
}

export const wow: FamilyAdapter = {
  name: 'wow',
  aliases: ['wow112', 'vanilla'],
  summary: 'World of Warcraft 1.12.1: SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT (zlib), SMSG_DESTROY_OBJECT (server frames, header decrypted)',
  options: {
    body: { type: 'boolean', description: 'the input is a bare uncompressed update body (blockCount, hasTransport, blocks), not a whole server frame', default: false },
    'movement-guid': { type: 'string', description: 'guid width of MOVEMENT (type 1) blocks, disputed in the sources', choices: ['u64', 'packed'], default: 'u64' },
    ...wowCaptureOptions,
  },
  samples: [
    {
      id: 'session',
      title: 'Login, transports, a creature fight and despawns (fixtures and builder output)',
      path: 'samples/wow/session.hex',
      format: 'hex-lines',
    },
    { id: 'capture', title: 'An encrypted world session in a pcap (synthetic; key recovered)', path: 'samples/wow/session.pcap', format: 'pcap' },
  ],
  createDecoder(opts: OptionValues) {
    const d = new WowStreamDecoder(opts);
    return {
      decode: (bytes: Uint8Array, spans?: SpanSink) => {
        try {
          return d.decode(bytes, spans);
        } catch (e) {
          if (e instanceof DecodeError) throw e;
          throw new DecodeError(0, '', 'well-formed input', `internal error: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
      state: () => d.state(),
    };
  },
  decodeFile: (bytes: Uint8Array, opts: OptionValues) => decodeWowCaptureFile(bytes, opts, (o) => wow.createDecoder(o)),
  createEncoder(opts: OptionValues) {
    const moveGuid = movementGuid(opts);
    return {
      encode(json: unknown): Uint8Array[] {
        if (opts.body === true) {
          const o = json !== null && typeof json === 'object' && 'body' in json && !('blocks' in json) ? (json as { body: unknown }).body : json;
          return [encodeBody(bodyFromJson(o), { movementBlockGuid: moveGuid })];
        }
        let p: ServerPacket;
        try {
          p = packetFromJson(json);
        } catch (e) {
          if (e instanceof EncodeError) throw e;
          throw new EncodeError('', e instanceof Error ? e.message : String(e));
        }
        return [encodePacket(p, { movementBlockGuid: moveGuid })];
      },
    };
  },
};

/**
 * The WoW 1.12.1 adapter for the CLI and the inspector: whole server frames
 * (SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT, SMSG_DESTROY_OBJECT) by
 * default, the bare uncompressed body with `--body`. The decoder keeps an
 * object store, so VALUES blocks are typed with the type from earlier creates.
 */
import { DecodeError, EncodeError, InflatedZlib, isCapture, platformInflates, type SpanSink, type ZlibStream } from '../core/index.js';
import { noChanges, type MirrorChanges } from '../core/mirror.js';
import {
  ObjectStore,
  SMSG_COMPRESSED_UPDATE_OBJECT,
  WOW_LIMITS,
  bodyFromJson,
  bodyToJson,
  decodeBody,
  decodePacketDetailed,
  decodeWowCapture,
  encodeBody,
  encodePacket,
  guidHex,
  mirrorChanges,
  packetFromJson,
  packetToJson,
  typeIdFromGuid,
  type GuidRange,
  type MovementGuidWidth,
  type ServerPacket,
  type WowDecodeOptions,
} from '../protocols/wow/index.js';
import { captureOptions, decodeWowCaptureFile, wowCaptureOptions } from './wow-capture.js';
import type {
  DecodedMessage,
  EntityByteRange,
  EntityRow,
  EntityTable,
  FamilyAdapter,
  FileDetail,
  MessageSummary,
  OptionValues,
  PreparedInput,
} from './types.js';

function movementGuid(opts: OptionValues): MovementGuidWidth {
  return opts['movement-guid'] === 'packed' ? 'packed' : 'u64';
}

class WowStreamDecoder {
  readonly store = new ObjectStore();
  /** What the last message changed (the store's `ClientMirror` vocabulary). */
  private last: MirrorChanges = noChanges();
  /**
   * Each object's type and fields as `state()` last built them, dropped as soon as a
   * message creates, changes or removes the object: `state()` after every message (the
   * page, `stats`) rebuilds only what changed instead of every field of every object.
   */
  private readonly rows = new Map<string, { type: string; fields: Record<string, unknown> }>();
  constructor(
    private readonly opts: OptionValues,
    private readonly inflated?: InflatedZlib,
  ) {}

  /** Forget the cached rows of the objects the last message touched. */
  private touched(): void {
    if (this.rows.size === 0) return;
    for (const id of this.last.created) this.rows.delete(id);
    for (const id of this.last.updated.keys()) this.rows.delete(id);
    for (const id of this.last.removed) this.rows.delete(id);
  }

  decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
    const ranges: GuidRange[] = [];
    // Types come from earlier creates; the guid's high part is only a fallback for naming (§3.2).
    const typeOf = (g: bigint) => this.store.typeOf(g) ?? typeIdFromGuid(g);
    const dopts: WowDecodeOptions = { movementBlockGuid: movementGuid(this.opts), typeOf, ranges };
    if (this.inflated !== undefined) dopts.inflated = this.inflated;
    if (spans !== undefined) dopts.spans = spans;
    let record: Record<string, unknown>;
    const entities: EntityByteRange[] = [];
    let layers: Record<string, Uint8Array> | undefined;
    if (this.opts.body === true) {
      const body = decodeBody(bytes, dopts);
      record = bodyToJson(body, { typeOf, length: bytes.length });
      this.last = mirrorChanges(this.store.applyBody(body));
      this.touched();
      for (const r of ranges) entities.push({ id: guidHex(r.guid), start: r.start, end: r.end });
    } else {
      const d = decodePacketDetailed(bytes, dopts);
      const info: { size: number; bodyLength?: number } = { size: d.size };
      if (d.body !== undefined) info.bodyLength = d.body.length;
      record = packetToJson(d.packet, info, { typeOf });
      this.last = this.store.apply(d.packet);
      this.touched();
      const layer = d.bodyOffset < 0 && d.body !== undefined ? 'zlib' : undefined;
      if (layer !== undefined) layers = { zlib: d.body! };
      // offsets are in the frame when the body was read in place, in the inflated body otherwise
      for (const r of ranges)
        entities.push(layer === undefined ? { id: guidHex(r.guid), start: r.start, end: r.end } : { id: guidHex(r.guid), start: r.start, end: r.end, layer });
    }
    if (this.last.issues.length > 0) record.problems = this.last.issues.map((i) => i.message);
    const out: DecodedMessage = { records: [record], entities };
    if (layers !== undefined) out.layers = layers;
    return out;
  }

  state(): EntityTable {
    const rows: EntityRow[] = [];
    const created = new Set(this.last.created);
    // (objects gone without a remove event, should there be any: start the cache afresh)
    if (this.rows.size > this.store.objects.size) this.rows.clear();
    for (const id of this.store.entityIds()) {
      let e = this.rows.get(id);
      if (e === undefined) {
        const o = this.store.entity(id)!;
        this.rows.set(id, (e = { type: o.type, fields: o.fields }));
      }
      const row: EntityRow = { id, type: e.type, fields: e.fields, changed: [] };
      if (created.has(id)) {
        row.created = true;
        row.changed = Object.keys(e.fields);
      } else row.changed = this.last.updated.get(id) ?? [];
      rows.push(row);
    }
    return { rows, removed: this.last.removed };
  }
}

/** Compressed frames from which `prepare` inflates ahead (fewer: each is inflated as it is decoded). */
const PREPARE_FROM = 4;

/**
 * The zlib streams of the compressed server frames among `frames` (with their declared
 * sizes, those within the default limits), inflated by the platform's DecompressionStream
 * when there are many and the platform has it (a browser; `impl: 'platform'` wherever it
 * exists, for tests on Node); undefined otherwise.
 */
export async function prepareWowZlib(frames: readonly Uint8Array[], impl?: 'platform'): Promise<PreparedInput | undefined> {
  if (!platformInflates(impl)) return undefined;
  const streams: ZlibStream[] = [];
  for (const f of frames) {
    if (f.length < 8 || (f[2]! | (f[3]! << 8)) !== SMSG_COMPRESSED_UPDATE_OBJECT) continue;
    const size = (f[4]! | (f[5]! << 8) | (f[6]! << 16) | (f[7]! << 24)) >>> 0;
    if (size > WOW_LIMITS.wowMaxUncompressedSize || size > WOW_LIMITS.maxZlibOutput) continue;
    streams.push({ z: f.subarray(8), expectedSize: size });
  }
  if (streams.length < PREPARE_FROM) return undefined;
  return { zlib: await InflatedZlib.of(streams, impl === undefined ? { maxOutput: WOW_LIMITS.maxZlibOutput } : { maxOutput: WOW_LIMITS.maxZlibOutput, impl }) };
}

const DIRECTIONS: Record<string, string> = { server: 'server→client', client: 'client→server' };

/**
 * The packet list's and `tickwire stats`' line of a WoW message: frames by their opcode
 * name (a bare frame's `frame.opcodeName`, a captured frame's `name`, in both directions),
 * a bare body as `update body`, a capture's other records by their kind.
 */
function summarizeWow(m: DecodedMessage): MessageSummary {
  const r = m.records[0];
  if (r === null || typeof r !== 'object') return { type: m.records.length === 0 ? '(no record)' : 'wow' };
  const o = r as Record<string, unknown>;
  const frame = o.frame !== null && typeof o.frame === 'object' ? (o.frame as Record<string, unknown>) : undefined;
  let type: string;
  if (typeof o.record === 'string') type = o.record === 'frame' && typeof o.name === 'string' ? o.name : o.record;
  else if (frame !== undefined) type = typeof frame.opcodeName === 'string' ? frame.opcodeName : `opcode ${String(frame.opcode)}`;
  else type = 'update body';
  const out: MessageSummary = { type };
  if (typeof o.time === 'number') out.time = o.time;
  const dir = typeof o.direction === 'string' ? DIRECTIONS[o.direction] : frame !== undefined ? DIRECTIONS.server : undefined;
  if (dir !== undefined) out.direction = dir;
  return out;
}

export const wow: FamilyAdapter = {
  name: 'wow',
  aliases: ['wow112', 'vanilla'],
  summary: 'World of Warcraft 1.12.1: SMSG_UPDATE_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT (zlib), SMSG_DESTROY_OBJECT (server frames, header decrypted)',
  options: {
    body: {
      type: 'boolean',
      description: 'the input is a bare uncompressed update body (blockCount, hasTransport, blocks), not a whole server frame',
      default: false,
    },
    'movement-guid': {
      type: 'string',
      description: 'guid width of MOVEMENT (type 1) blocks, disputed in the sources',
      choices: ['u64', 'packed'],
      default: 'u64',
    },
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
  createDecoder(opts: OptionValues, prepared?: PreparedInput) {
    const d = new WowStreamDecoder(opts, prepared?.zlib);
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
  summarize: summarizeWow,
  decodeFile: (bytes: Uint8Array, opts: OptionValues, detail?: FileDetail, prepared?: PreparedInput) =>
    decodeWowCaptureFile(bytes, opts, (o) => wow.createDecoder(o, prepared), detail),
  async prepare(input, opts) {
    if (opts.body === true || !platformInflates()) return undefined;
    if ('messages' in input) return prepareWowZlib(input.messages);
    if (!isCapture(input.file)) return undefined;
    // the capture's server frames, framed (and deciphered) once more by decodeFile
    const frames: Uint8Array[] = [];
    for (const e of decodeWowCapture(input.file, captureOptions(opts))) if (e.kind === 'frame' && e.direction === 'server') frames.push(e.bytes);
    return prepareWowZlib(frames);
  },
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

/**
 * `tickwire decode wow --pcap FILE [--session-key HEX]`: the WoW world
 * connections of a capture as JSON records, one per frame (both directions),
 * plus connection, key, gap and skip records. Update-object frames are decoded
 * by the family's own stream decoder (one per connection, so VALUES blocks are
 * typed from earlier creates) and carry its record under `update`, with the same
 * entity byte ranges as a bare frame; other opcodes are named opaque frames.
 *
 * Kept apart from `wow.ts` (the adapter spreads `wowCaptureOptions` and calls
 * `decodeWowCaptureFile`), so the capture reader and the codec adapter can grow
 * separately.
 */
import { DecodeError, EncodeError, SpanSink, isCapture, toHex } from '../core/index.js';
import { decodeWowCapture, type WowCaptureEvent, type WowCaptureOptions } from '../protocols/wow/index.js';
import { sessionKeyFromHex } from '../protocols/wow/index.js';
import { ConnectionStates } from './capture-state.js';
import type { DecodedMessage, EntityTable, FamilyOption, FileDetail, OptionValues, StreamDecoder } from './types.js';

/** A family option; `inputFile` marks a string option that names the input file (the CLI reads it). */
type CaptureOption = FamilyOption & { inputFile?: boolean };

export const wowCaptureOptions: Record<string, CaptureOption> = {
  pcap: { type: 'string', description: 'decode: read a pcap / pcapng capture and follow its WoW world connections (TCP, header cipher)', inputFile: true },
  'session-key': {
    type: 'string',
    description: 'decode --pcap: the session key K as hex (as MaNGOS stores it in account.sessionkey); without it the key is recovered from known plaintext',
  },
  'session-key-order': {
    type: 'string',
    description: 'decode --pcap: db = big-endian number as in account.sessionkey; bytes = the 40 key bytes in cipher order',
    choices: ['db', 'bytes'],
    default: 'db',
  },
  'server-port': { type: 'string', description: 'decode --pcap: follow only connections with this server port' },
};

/** Opcodes the family decoder reads (SMSG_UPDATE_OBJECT, SMSG_DESTROY_OBJECT, SMSG_COMPRESSED_UPDATE_OBJECT). */
const UPDATE_OPCODES = new Set([0x0a9, 0x0aa, 0x1f6]);
/** Payload bytes shown (as hex) for an opaque frame. */
const PAYLOAD_HEAD = 32;

export function captureOptions(opts: OptionValues): WowCaptureOptions {
  const o: WowCaptureOptions = {};
  if (typeof opts['session-key'] === 'string') {
    const order = opts['session-key-order'] === 'bytes' ? 'bytes' : 'db';
    o.sessionKey = sessionKeyFromHex(opts['session-key'], order);
  }
  if (typeof opts['server-port'] === 'string') {
    const p = Number(opts['server-port']);
    if (!(Number.isInteger(p) && p > 0 && p < 65536))
      throw new EncodeError('server-port', `expected a port in 1..65535, got ${JSON.stringify(opts['server-port'])}`);
    o.serverPort = p;
  }
  return o;
}

function hex16(n: number): string {
  return `0x${n.toString(16).padStart(4, '0')}`;
}

/** The header fields of a frame record and their bytes: server `u16be size, u16le opcode`, client `u16be size, u32le opcode`. */
function headerSpans(sink: SpanSink, hl: number, length: number, opcode: boolean): void {
  if (length >= 2) sink.add('size', 0, 2, 'u16be');
  if (opcode && length >= hl) sink.add('opcode', 2, hl, hl === 4 ? 'u16le' : 'u32le');
}

/**
 * The messages of a capture: one per event, in capture order per connection. A frame
 * message carries the frame (header deciphered) as its bytes, spans whose paths are
 * those of its record (`size`, `opcode`, `payloadHead`, and `update.…` as the family
 * decoder records them for an update frame), and the client state after it: each
 * connection's object store, as the bare-frame decoder keeps it.
 */
export function* wowCaptureMessages(
  bytes: Uint8Array,
  opts: OptionValues,
  createDecoder: (o: OptionValues) => StreamDecoder,
  detail: FileDetail = { spans: true, state: true },
): Generator<DecodedMessage> {
  const events: WowCaptureEvent[] = decodeWowCapture(bytes, captureOptions(opts));
  const decoders = new Map<number, StreamDecoder>();
  const frameOpts: OptionValues = { ...opts, body: false };
  const states = new ConnectionStates();
  const withState = (m: DecodedMessage, conn: number | undefined, table: EntityTable | undefined): DecodedMessage => {
    if (detail.state) m.state = states.after(conn, table);
    return m;
  };
  for (const e of events) {
    if (e.kind === 'connection') {
      const r: Record<string, unknown> = {
        record: 'connection',
        conn: e.conn,
        time: e.time,
        client: e.client,
        server: e.server,
        handshake: e.handshake,
        world: e.world,
      };
      if (e.note !== undefined) r.note = e.note;
      yield withState({ records: [r] }, undefined, undefined);
    } else if (e.kind === 'key') {
      const r = {
        record: 'key',
        conn: e.conn,
        source: e.source,
        known: e.known,
        of: e.key.length,
        key: e.key.map((b) => (b === null ? '??' : b.toString(16).padStart(2, '0'))).join(''),
        evidence: e.evidence,
        conflicts: e.conflicts,
        frames: e.frames,
        badOpcodes: e.badOpcodes,
      };
      yield withState({ records: [r] }, undefined, undefined);
    } else if (e.kind === 'gap' || e.kind === 'skip') {
      const r: Record<string, unknown> = {
        record: e.kind,
        conn: e.conn,
        direction: e.direction,
        time: e.time,
        pcapFrame: e.pcapFrame,
        offset: e.offset,
        length: e.length,
        reason: e.reason,
      };
      yield withState({ records: [r] }, undefined, undefined);
    } else {
      const hl = e.direction === 'server' ? 4 : 6;
      const payloadLength = Math.max(0, e.bytes.length - hl);
      const r: Record<string, unknown> = {
        record: 'frame',
        conn: e.conn,
        direction: e.direction,
        index: e.index,
        time: e.time,
        pcapFrame: e.pcapFrame,
        offset: e.offset,
        size: e.size,
        opcode: e.opcode === undefined ? null : hex16(e.opcode),
        name: e.name,
        header: e.header,
        payloadLength,
      };
      if (!e.complete) r.complete = false;
      const sink = detail.spans ? new SpanSink() : undefined;
      if (sink !== undefined) headerSpans(sink, hl, e.bytes.length, e.opcode !== undefined);
      const out: DecodedMessage = { records: [r], bytes: e.bytes };
      let table: EntityTable | undefined;
      if (e.direction === 'server' && e.opcode !== undefined && UPDATE_OPCODES.has(e.opcode) && e.complete) {
        let d = decoders.get(e.conn);
        if (d === undefined) decoders.set(e.conn, (d = createDecoder(frameOpts)));
        const before = sink?.spans.length ?? 0;
        sink?.push('update');
        try {
          const m = d.decode(e.bytes, sink);
          r.update = m.records.length === 1 ? m.records[0] : m.records;
          if (m.layers !== undefined) out.layers = m.layers;
          if (m.entities !== undefined) out.entities = m.entities;
        } catch (err) {
          if (!(err instanceof DecodeError)) throw err;
          r.error = err.message;
          // the fields read before the error name no node of this record
          if (sink !== undefined) {
            sink.spans.length = before;
            sink.layer = undefined;
          }
        }
        sink?.pop();
        if (detail.state) table = d.state?.();
      } else if (payloadLength > 0) {
        const head = e.bytes.subarray(hl, hl + PAYLOAD_HEAD);
        r.payloadHead = toHex(head);
        sink?.add('payloadHead', hl, hl + head.length, 'bytes');
      }
      if (sink !== undefined) out.spans = sink.spans;
      yield withState(out, e.conn, table);
    }
  }
}

/**
 * The `decodeFile` hook of the wow adapter: a capture file (or `--pcap FILE`)
 * is read as WoW world connections; anything else falls back to the normal
 * message handling (undefined).
 */
export function decodeWowCaptureFile(
  bytes: Uint8Array,
  opts: OptionValues,
  createDecoder: (o: OptionValues) => StreamDecoder,
  detail?: FileDetail,
): Iterable<DecodedMessage> | undefined {
  if (typeof opts.pcap !== 'string' && !isCapture(bytes)) return undefined;
  return wowCaptureMessages(bytes, opts, createDecoder, detail);
}

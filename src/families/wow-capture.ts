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
import { DecodeError, EncodeError, isCapture, toHex } from '../core/index.js';
import { decodeWowCapture, type WowCaptureEvent, type WowCaptureOptions } from '../protocols/wow/index.js';
import { sessionKeyFromHex } from '../protocols/wow/index.js';
import type { DecodedMessage, EntityByteRange, FamilyOption, OptionValues, StreamDecoder } from './types.js';

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

function captureOptions(opts: OptionValues): WowCaptureOptions {
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

/** The messages of a capture: one per event, in capture order per connection. */
export function* wowCaptureMessages(bytes: Uint8Array, opts: OptionValues, createDecoder: (o: OptionValues) => StreamDecoder): Generator<DecodedMessage> {
  const events: WowCaptureEvent[] = decodeWowCapture(bytes, captureOptions(opts));
  const decoders = new Map<number, StreamDecoder>();
  const frameOpts: OptionValues = { ...opts, body: false };
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
      yield { records: [r] };
    } else if (e.kind === 'key') {
      yield {
        records: [
          {
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
          },
        ],
      };
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
      yield { records: [r] };
    } else {
      const hl = e.direction === 'server' ? 4 : 6;
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
        payloadLength: Math.max(0, e.bytes.length - hl),
      };
      if (!e.complete) r.complete = false;
      const layers: Record<string, Uint8Array> = { frame: e.bytes };
      let entities: EntityByteRange[] = [];
      if (e.direction === 'server' && e.opcode !== undefined && UPDATE_OPCODES.has(e.opcode) && e.complete) {
        let d = decoders.get(e.conn);
        if (d === undefined) decoders.set(e.conn, (d = createDecoder(frameOpts)));
        try {
          const m = d.decode(e.bytes);
          r.update = m.records.length === 1 ? m.records[0] : m.records;
          if (m.layers !== undefined) Object.assign(layers, m.layers);
          // Ranges in the frame itself refer to the `frame` layer here (a capture message has no bytes of its own).
          entities = (m.entities ?? []).map((x) => (x.layer === undefined ? { ...x, layer: 'frame' } : x));
        } catch (err) {
          if (!(err instanceof DecodeError)) throw err;
          r.error = err.message;
        }
      } else {
        r.payloadHead = toHex(e.bytes.subarray(hl, hl + PAYLOAD_HEAD));
      }
      yield { records: [r], layers, entities };
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
): Iterable<DecodedMessage> | undefined {
  if (typeof opts.pcap !== 'string' && !isCapture(bytes)) return undefined;
  return wowCaptureMessages(bytes, opts, createDecoder);
}

/**
 * Capture-side additions to the Diep adapter: `decode diep --pcap FILE` and
 * `--har FILE` (also a pcap / pcapng / HAR given as FILE). Kept in its own file;
 * `diep.ts` spreads the options into its adapter and passes its `createDecoder`.
 *
 * One record per item: `connection` (the WebSocket upgrade), `message` (one
 * Diep packet with its direction, decoded by the family's stream decoder of that
 * direction and connection, and the store issues of a 0x00 update), `control`
 * (ping / pong / close) and `problem` (a TCP gap, a bad frame; a message the
 * decoder rejects is a `message` with `error`).
 */
import { DecodeError, SpanSink, isCapture, toHex } from '../core/index.js';
import { looksLikeJsonObject } from '../core/har.js';
import { DiepCaptureReader, type DiepCaptureItem } from '../protocols/diep/index.js';
import { ConnectionStates } from './capture-state.js';
import type { DecodedMessage, FamilyAdapter, FamilyOption, FileDetail, OptionValues, StreamDecoder } from './types.js';

type FileOption = FamilyOption & { inputFile?: boolean };

const options: Record<string, FileOption> = {
  pcap: {
    type: 'string',
    description: 'decode: read a pcap / pcapng capture of WebSocket connections (HTTP upgrade, frames, permessage-deflate)',
    inputFile: true,
  },
  har: { type: 'string', description: 'decode: read a HAR export (the _webSocketMessages of its entries)', inputFile: true },
};

/** Most connections with decoders at once (the oldest are dropped, as the reader drops its stores). */
const MAX_CONNECTIONS = 256;
/** Bytes of a message that failed shown as `hex`. */
const HEX_HEAD = 4096;

/**
 * The JSON record of one capture item. A message's `packet` is `decoded`, the record the
 * family's stream decoder gave for it (its store issues moved up to the message record).
 */
function diepCaptureRecord(it: DiepCaptureItem, decoded?: { packet?: Record<string, unknown>; error?: string }): Record<string, unknown> {
  const where: Record<string, unknown> = { connection: it.connection, time: it.time };
  if (it.frame !== undefined) where.frame = it.frame;
  switch (it.kind) {
    case 'connection': {
      const r: Record<string, unknown> = { record: 'connection', ...where, url: it.url };
      if (it.client) r.client = `${it.client.addr}:${it.client.port}`;
      if (it.server) r.server = `${it.server.addr}:${it.server.port}`;
      if (it.status !== undefined) r.status = it.status;
      if (it.deflate) r.deflate = { ...it.deflate };
      return r;
    }
    case 'message': {
      const r: Record<string, unknown> = {
        record: 'message',
        ...where,
        direction: it.direction,
        index: it.index,
        length: it.data.length,
        compressed: it.compressed,
      };
      if (it.frames !== undefined) r.frames = it.frames;
      const error = it.error?.message ?? decoded?.error;
      if (decoded?.packet !== undefined) {
        const { issues, issuesNotListed, ...packet } = decoded.packet;
        r.packet = packet;
        if (issues !== undefined) r.issues = issues;
        if (issuesNotListed !== undefined) r.issuesNotListed = issuesNotListed;
      }
      if (error !== undefined) {
        r.error = error;
        r.hex = toHex(it.data.subarray(0, HEX_HEAD));
      }
      return r;
    }
    case 'control': {
      const r: Record<string, unknown> = { record: 'control', ...where, direction: it.direction, control: it.control, data: toHex(it.data) };
      if (it.code !== undefined) r.code = it.code;
      if (it.reason !== undefined) r.reason = it.reason;
      return r;
    }
    case 'problem': {
      const r: Record<string, unknown> = { record: 'problem', ...where, error: it.error.message, fatal: it.fatal };
      if (it.direction !== undefined) r.direction = it.direction;
      return r;
    }
  }
}

/** The family's stream decoders of one connection (created on first use). */
interface ConnDecoders {
  clientbound?: StreamDecoder;
  serverbound?: StreamDecoder;
}

/**
 * One message per capture item. Every Diep message of a connection goes through the
 * family's stream decoder of its direction (the one `decode diep` runs on bare messages,
 * one per connection: the clientbound one keeps the connection's entity store), with a
 * span sink under `packet`; the message's payload is its bytes; the state after it is
 * every connection's store (`ConnectionStates`).
 */
function* messages(
  items: Iterable<DiepCaptureItem>,
  createDecoder: (o: OptionValues) => StreamDecoder,
  detail: FileDetail,
  empty: string,
): Generator<DecodedMessage> {
  const decoders = new Map<number, ConnDecoders>();
  const states = new ConnectionStates();
  let n = 0;
  for (const it of items) {
    n++;
    if (it.kind !== 'message' || it.opcode !== 2 || it.error !== undefined) {
      const out: DecodedMessage = { records: [diepCaptureRecord(it)] };
      if (it.kind === 'message') {
        out.bytes = it.data;
        // a text message: its bytes are the `hex` shown with the error
        if (detail.spans) out.spans = [{ path: 'hex', start: 0, end: Math.min(it.data.length, HEX_HEAD), kind: 'bytes' }];
      } else if (it.kind === 'control' && it.data.length > 0) {
        out.bytes = it.data;
        if (detail.spans) {
          out.spans = [{ path: 'data', start: 0, end: it.data.length, kind: 'bytes' }];
          // a close frame's body: u16be code, then the reason in UTF-8
          if (it.code !== undefined && it.data.length >= 2) out.spans.push({ path: 'code', start: 0, end: 2, kind: 'u16be' });
          if (it.reason !== undefined && it.data.length > 2) out.spans.push({ path: 'reason', start: 2, end: it.data.length, kind: 'utf8' });
        }
      }
      if (detail.state) out.state = states.after(undefined, undefined);
      yield out;
      continue;
    }
    let conn = decoders.get(it.connection);
    if (conn === undefined) {
      if (decoders.size >= MAX_CONNECTIONS) decoders.delete(decoders.keys().next().value!);
      decoders.set(it.connection, (conn = {}));
    }
    const dec = (conn[it.direction] ??= createDecoder({ direction: it.direction }));
    const sink = detail.spans ? new SpanSink() : undefined;
    sink?.push('packet');
    const out: DecodedMessage = { records: [], bytes: it.data };
    let decoded: { packet?: Record<string, unknown>; error?: string };
    try {
      const m = dec.decode(it.data, sink);
      decoded = { packet: m.records[0] as Record<string, unknown> };
      if (m.layers !== undefined) out.layers = m.layers;
      if (m.entities !== undefined) out.entities = m.entities;
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      decoded = { error: e.message };
      // the fields read before the error name no node of this record: the bytes are shown as `hex`
      if (sink !== undefined) sink.spans.length = 0;
    }
    out.records.push(diepCaptureRecord(it, decoded));
    if (sink !== undefined) {
      sink.pop();
      sink.layer = undefined;
      if (decoded.error !== undefined) sink.add('hex', 0, Math.min(it.data.length, HEX_HEAD), 'bytes');
      out.spans = sink.spans;
    }
    if (detail.state) out.state = states.after(it.connection, it.direction === 'clientbound' && decoded.packet !== undefined ? dec.state?.() : undefined);
    yield out;
  }
  if (n === 0) detail.note?.(empty);
}

const ALL: FileDetail = { spans: true, state: true };

/**
 * The `decodeFile` hook of the diep adapter (`diep.ts` passes its own `createDecoder`):
 * a HAR (`--har`, or a JSON file) or a pcap / pcapng (`--pcap`, or recognised), else
 * undefined (the normal message handling).
 */
export function decodeDiepCaptureFile(
  bytes: Uint8Array,
  opts: OptionValues,
  createDecoder: (o: OptionValues) => StreamDecoder,
  detail: FileDetail = ALL,
): Iterable<DecodedMessage> | undefined {
  const reader = new DiepCaptureReader({ decode: false });
  const noHar = 'no WebSocket message in the HAR';
  if (typeof opts.har === 'string') return messages(reader.har(bytes), createDecoder, detail, noHar);
  if (typeof opts.pcap === 'string' || isCapture(bytes))
    return messages(reader.pcap(bytes), createDecoder, detail, 'no Diep WebSocket connection in the capture');
  if (looksLikeJsonObject(bytes)) return messages(reader.har(bytes), createDecoder, detail, noHar);
  return undefined;
}

export const diepCaptureOptions: FamilyAdapter['options'] = options;

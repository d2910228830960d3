/**
 * Capture-side additions to the Diep adapter: `decode diep --pcap FILE` and
 * `--har FILE` (also a pcap / pcapng / HAR given as FILE). Kept in its own file;
 * `diep.ts` spreads these into its adapter.
 *
 * One record per item: `connection` (the WebSocket upgrade), `message` (one
 * Diep packet with its direction, decoded by the codec, and the store issues
 * of a 0x00 update), `control` (ping / pong / close) and `problem` (a TCP gap,
 * a bad frame, a message the codec rejects is a `message` with `error`).
 */
import { isCapture, toHex } from '../core/index.js';
import { looksLikeJsonObject } from '../core/har.js';
import {
  DiepCaptureReader,
  clientboundToJson,
  serverboundToJson,
  FIELDS_6F59094D,
  type ClientboundPacket,
  type DiepCaptureItem,
  type ServerboundPacket,
} from '../protocols/diep/index.js';
import type { DecodedMessage, FamilyAdapter, FamilyOption, OptionValues } from './types.js';

type FileOption = FamilyOption & { inputFile?: boolean };

const options: Record<string, FileOption> = {
  pcap: {
    type: 'string',
    description: 'decode: read a pcap / pcapng capture of WebSocket connections (HTTP upgrade, frames, permessage-deflate)',
    inputFile: true,
  },
  har: { type: 'string', description: 'decode: read a HAR export (the _webSocketMessages of its entries)', inputFile: true },
};

/** The JSON record of one capture item. */
export function diepCaptureRecord(it: DiepCaptureItem): Record<string, unknown> {
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
      if (it.packet !== undefined) {
        r.packet =
          it.direction === 'clientbound'
            ? clientboundToJson(it.packet as ClientboundPacket, FIELDS_6F59094D)
            : serverboundToJson(it.packet as ServerboundPacket);
      }
      if (it.applied !== undefined && it.applied.issues.length > 0) r.issues = it.applied.issues.map((i) => i.message);
      if (it.error !== undefined) {
        r.error = it.error.message;
        r.hex = toHex(it.data.subarray(0, 4096));
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

function* messages(items: Iterable<DiepCaptureItem>): Generator<DecodedMessage> {
  for (const it of items) {
    const out: DecodedMessage = { records: [diepCaptureRecord(it)] };
    if (it.kind === 'message') out.layers = { message: it.data };
    yield out;
  }
}

export const diepCaptureExtras: { options: FamilyAdapter['options']; decodeFile: NonNullable<FamilyAdapter['decodeFile']> } = {
  options,
  decodeFile(bytes: Uint8Array, opts: OptionValues): Iterable<DecodedMessage> | undefined {
    const reader = new DiepCaptureReader();
    if (typeof opts.har === 'string') return messages(reader.har(bytes));
    if (typeof opts.pcap === 'string' || isCapture(bytes)) return messages(reader.pcap(bytes));
    if (looksLikeJsonObject(bytes)) return messages(reader.har(bytes));
    return undefined;
  },
};

/**
 * The Diep.io adapter (client build 6f59094d): CLI and inspector surface over
 * the family's public API. The decoder keeps an `EntityStore` as its state.
 */
import { decodeLz4Block, type SpanSink } from '../core/index.js';
import {
  EntityStore,
  clientboundFromJson,
  clientboundToJson,
  decodeClientbound,
  decodeServerbound,
  encodeClientbound,
  encodeServerbound,
  serverboundFromJson,
  serverboundToJson,
  FIELDS_6F59094D,
  resolveDiepLimits,
  type DiepChanges,
  type ClientboundPacket,
} from '../protocols/diep/index.js';
import { decodeDiepCaptureFile, diepCaptureOptions } from './diep-capture.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, FileDetail, OptionValues } from './types.js';

const SERVERBOUND_TYPES = new Set(['Init', 'Input', 'Spawn', 'StatUpgrade', 'TankUpgrade', 'Command', 'ModifiedClient', 'LeaveDeathScreen', 'TakeTank']);
const table = FIELDS_6F59094D;

/**
 * The state table from the store's `ClientMirror` view and the last message's changes.
 * `cache` keeps each entity's kind and fields as last read; the decoder drops an entry
 * as soon as a message creates, changes or removes that entity, so a table after every
 * message (the page, `stats`) reads only what changed.
 */
function rowsOf(store: EntityStore, last: DiepChanges | undefined, cache: Map<string, { type: string; fields: Record<string, unknown> }>): EntityTable {
  const rows: EntityRow[] = [];
  const created = new Set(last?.created ?? []);
  // (entities gone without a removal, should there be any: start the cache afresh)
  if (cache.size > store.entities.size) cache.clear();
  for (const id of store.entityIds()) {
    let e = cache.get(id);
    if (e === undefined) {
      const x = store.entity(id)!;
      cache.set(id, (e = { type: x.type, fields: x.fields }));
    }
    const isNew = created.has(id);
    const changed = isNew ? Object.keys(e.fields) : (last?.updated.get(id) ?? []);
    const row: EntityRow = { id, type: e.type, fields: e.fields, changed };
    if (isNew) row.created = true;
    rows.push(row);
  }
  return { rows, removed: last?.removed ?? [] };
}

/**
 * Clientbound decoder: one store (the client mirror) carried from message to message;
 * nothing else is kept across messages (the last changes only, for `state()`).
 */
function clientboundDecoder() {
  const store = new EntityStore();
  let last: DiepChanges | undefined;
  const cache = new Map<string, { type: string; fields: Record<string, unknown> }>();
  const limits = resolveDiepLimits();
  return {
    decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
      const ranges: number[] = [];
      const p = decodeClientbound(bytes, { spans, ranges });
      let update: ClientboundPacket = p;
      const out: DecodedMessage = { records: [] };
      let layer: string | undefined;
      if (p.type === 'Compressed') {
        update = p.inner;
        layer = 'lz4';
        out.layers = { lz4: decodeLz4Block(p.block, limits.maxLz4Output, p.size) };
      }
      const record: Record<string, unknown> = clientboundToJson(p, table);
      last = undefined;
      if (update.type === 'Update') {
        last = store.apply(update);
        if (cache.size > 0) {
          for (const id of last.created) cache.delete(id);
          for (const id of last.updated.keys()) cache.delete(id);
          for (const id of last.removed) cache.delete(id);
        }
        if (last.issues.length > 0) record.issues = last.issues.map((i) => i.message);
        if (last.issuesDropped > 0) record.issuesNotListed = last.issuesDropped;
      }
      const entities: EntityByteRange[] = [];
      for (let i = 0; i + 4 < ranges.length; i += 5) {
        const r: EntityByteRange = { id: String(ranges[i + 1]), start: ranges[i + 3]!, end: ranges[i + 4]! };
        if (layer !== undefined) r.layer = layer;
        entities.push(r);
      }
      if (entities.length > 0) out.entities = entities;
      out.records.push(record);
      return out;
    },
    state(): EntityTable {
      return rowsOf(store, last, cache);
    },
  };
}

export const diep: FamilyAdapter = {
  name: 'diep',
  aliases: ['diepio', 'diep.io'],
  summary: 'Diep.io build 6f59094d (diepcustom): 0x00 entity updates, LZ4 0x02, handshake and input packets',
  options: {
    direction: {
      type: 'string',
      description: 'which side sent the messages',
      choices: ['clientbound', 'serverbound'],
      default: 'clientbound',
    },
    ...diepCaptureOptions,
  },
  decodeFile: (bytes: Uint8Array, opts: OptionValues, detail?: FileDetail) => decodeDiepCaptureFile(bytes, opts, (o) => diep.createDecoder(o), detail),
  samples: [
    {
      id: 'sandbox-nospawn',
      title: 'Sandbox game, one client that never spawns (79 messages: handshake, 74 updates, heartbeats)',
      path: 'samples/diep/sandbox_nospawn.hex',
      format: 'hex-lines',
    },
    {
      id: 'ffa-capture',
      title: 'A real capture: WebSocket upgrade, permessage-deflate, a tank spawning in /ffa (96 messages, pcap)',
      path: 'samples/diep/ffa_spawn.pcap',
      format: 'pcap',
    },
  ],
  createDecoder(opts: OptionValues) {
    if (opts.direction === 'serverbound') {
      return {
        decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
          return { records: [serverboundToJson(decodeServerbound(bytes, { spans }))] };
        },
      };
    }
    return clientboundDecoder();
  },
  createEncoder(opts: OptionValues) {
    return {
      encode(json: unknown): Uint8Array[] {
        const type = json !== null && typeof json === 'object' ? (json as { type?: unknown }).type : undefined;
        if (opts.direction === 'serverbound' || (typeof type === 'string' && SERVERBOUND_TYPES.has(type))) {
          return [encodeServerbound(serverboundFromJson(json))];
        }
        return [encodeClientbound(clientboundFromJson(json, table), { table })];
      },
    };
  },
};

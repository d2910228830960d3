/**
 * The Diep.io adapter (client build 6f59094d): CLI and inspector surface over
 * the family's public API. The decoder keeps an `EntityStore` as its state.
 */
import { decodeLz4Block, resolveLimits, type SpanSink } from '../core/index.js';
import {
  EntityStore,
  clientboundFromJson,
  clientboundToJson,
  decodeClientbound,
  decodeServerbound,
  encodeClientbound,
  encodeServerbound,
  f32ToJson,
  serverboundFromJson,
  serverboundToJson,
  FIELDS_6F59094D,
  F32Bits,
  type ApplyResult,
  type ClientboundPacket,
  type Scalar,
  type StoredEntity,
} from '../protocols/diep/index.js';
import { diepCaptureExtras } from './diep-capture.js';
import type { DecodedMessage, EntityByteRange, EntityRow, EntityTable, FamilyAdapter, OptionValues } from './types.js';

const SERVERBOUND_TYPES = new Set(['Init', 'Input', 'Spawn', 'StatUpgrade', 'TankUpgrade', 'Command', 'ModifiedClient', 'LeaveDeathScreen', 'TakeTank']);
const table = FIELDS_6F59094D;

function valueJson(f: number, v: Scalar | Scalar[] | undefined): unknown {
  const isF32 = table.fields[f]!.encoding === 'f32';
  const one = (x: Scalar): unknown => (x instanceof F32Bits || (isF32 && typeof x === 'number') ? f32ToJson(x) : x);
  if (Array.isArray(v)) return v.map(one);
  return v === undefined ? undefined : one(v);
}

function entityType(e: StoredEntity): string {
  const has = (name: string): boolean => {
    const g = table.groupByName.get(name);
    return g !== undefined && e.groups.includes(g);
  };
  if (has('arena')) return 'Arena';
  if (has('camera')) return 'Camera';
  if (has('barrel')) return 'Barrel';
  if (has('score')) return 'Tank';
  if (has('name') && has('physics')) return 'Shape';
  if (has('team') && !has('position')) return 'Team';
  if (has('physics') && has('position') && has('health')) return 'Projectile';
  return e.groups.map((g) => table.groups[g]?.name ?? String(g)).join('+') || 'Entity';
}

function rowsOf(store: EntityStore, last: ApplyResult | undefined): EntityTable {
  const rows: EntityRow[] = [];
  const created = new Set(last?.created ?? []);
  for (const e of store.entities.values()) {
    const fields: Record<string, unknown> = {};
    for (let f = 0; f < table.fieldCount; f++) {
      const v = e.values[f];
      if (v !== undefined) fields[table.fields[f]!.key] = valueJson(f, v);
    }
    const isNew = created.has(e.id);
    const changed = isNew ? Object.keys(fields) : (last?.changed.get(e.id) ?? []).map((f) => table.fields[f]!.key);
    const row: EntityRow = { id: String(e.id), type: entityType(e), fields, changed };
    if (isNew) row.created = true;
    rows.push(row);
  }
  rows.sort((a, b) => Number(a.id) - Number(b.id));
  return { rows, removed: (last?.removed ?? []).map(String) };
}

function clientboundDecoder(opts: OptionValues) {
  void opts;
  const store = new EntityStore();
  let last: ApplyResult | undefined;
  const limits = resolveLimits();
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
        last = store.apply(update, true);
        if (last.issues.length > 0) record.issues = last.issues.map((i) => i.message);
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
      return rowsOf(store, last);
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
    ...diepCaptureExtras.options,
  },
  decodeFile: diepCaptureExtras.decodeFile,
  samples: [
    {
      id: 'sandbox-nospawn',
      title: 'Sandbox game, one client that never spawns (79 messages: handshake, 74 updates, heartbeats)',
      path: 'samples/diep/sandbox_nospawn.hex',
      format: 'hex-lines',
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
    return clientboundDecoder(opts);
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


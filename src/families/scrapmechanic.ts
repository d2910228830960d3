/**
 * The Scrap Mechanic adapter: 0x16 Network Update (and 0x15, 0x1D) for the CLI and
 * the inspector, built on the family's public API.
 */
import { EncodeError } from '../core/errors.js';
import type { SpanSink } from '../core/spans.js';
import {
  ScrapMechanicSession,
  encodeBody,
  encodeMessage,
  encodeNetworkUpdate,
  toJson,
  type DeltaPolicy,
  type Packet,
  type SubUpdate,
} from '../protocols/scrapmechanic/index.js';
import type { DecodedMessage, EntityByteRange, EntityTable, FamilyAdapter, OptionValues } from './types.js';

/**
 * Sub-updates of a packet in stream order (inner packets of a 0x1D included). A loop,
 * not `push(...updates)`: a spread puts every element on the stack (an overflow past
 * about 123,000 sub-updates).
 */
function updatesOf(p: Packet, out: SubUpdate[] = []): SubUpdate[] {
  if ('updates' in p) for (let i = 0; i < p.updates.length; i++) out.push(p.updates[i]!);
  else if ('packets' in p) for (const q of p.packets) updatesOf(q, out); // depth ≤ 2: no 0x1D inside a 0x1D
  return out;
}

/**
 * The reconstructed bytes of every DeltaUpdate, by the layer name its field spans
 * use (the sub-update's path: `updates[3]`, `packets[1].updates[2]`).
 */
function deltaLayers(p: Packet, prefix: string, out: Record<string, Uint8Array>): void {
  if ('updates' in p) {
    p.updates.forEach((u, i) => {
      if (u.form === 'delta') out[`${prefix}updates[${i}]`] = encodeNetworkUpdate(u);
    });
  } else if ('packets' in p) p.packets.forEach((q, j) => deltaLayers(q, `${prefix}packets[${j}].`, out));
}

function entityRanges(updates: SubUpdate[], ranges: number[], shift: number, layer: string | undefined): EntityByteRange[] {
  const out: EntityByteRange[] = [];
  for (let i = 0; i < updates.length; i++) {
    const u = updates[i]!;
    const r: EntityByteRange = { id: `${u.netObjType}:${u.id}`, start: ranges[2 * i]! + shift, end: ranges[2 * i + 1]! + shift };
    if (layer !== undefined) r.layer = layer;
    out.push(r);
  }
  return out;
}

/** The state table from the session's `ClientMirror` view and the last message's changes. */
function tableOf(s: ScrapMechanicSession): EntityTable {
  const rows = [];
  const c = s.changes;
  const created = new Set(c.created);
  for (const id of s.entityIds()) {
    const e = s.entity(id)!;
    const isNew = created.has(id);
    const row: EntityTable['rows'][number] = { id, type: e.type, fields: { ...e.fields }, changed: isNew ? Object.keys(e.fields) : (c.updated.get(id) ?? []) };
    if (isNew) row.created = true;
    rows.push(row);
  }
  return { rows, removed: [...c.removed] };
}

export const scrapmechanic: FamilyAdapter = {
  name: 'scrapmechanic',
  aliases: ['sm', 'scrap'],
  summary: 'Scrap Mechanic 0x16 Network Update (also 0x15, 0x1D): LZ4, raw/delta sub-updates, NetObj layouts',
  options: {
    body: {
      type: 'boolean',
      description: 'the input (decode) or output (encode) is an already decompressed 0x16 body (be u32 tick + sub-updates), not a whole message',
    },
    strict: {
      type: 'boolean',
      description:
        'decode: reject trailing bytes, non-zero padding, invalid axis nibbles and unknown/conflicting variants instead of keeping them with a warning',
    },
    lz4: { type: 'string', description: 'encode: LZ4 block flavour', choices: ['fast', 'literal'], default: 'fast' },
    delta: {
      type: 'string',
      description: 'encode: raw/delta choice — replay the recorded form and bitfield of each sub-update, auto (delta wherever shorter), or raw only',
      choices: ['replay', 'auto', 'raw'],
      default: 'replay',
    },
  },
  samples: [
    {
      id: 'fixtures',
      title: 'Network Update fixtures (docs delta example, character, container) and a 0x1D compound',
      path: 'samples/scrapmechanic/network-updates.hex',
      format: 'hex-lines',
    },
  ],
  createDecoder(opts: OptionValues) {
    const session = new ScrapMechanicSession({ strict: opts.strict === true });
    const bodyMode = opts.body === true;
    return {
      decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage {
        const ranges: number[] = [];
        if (bodyMode) {
          const b = session.decodeBody(bytes, spans, ranges);
          const out: DecodedMessage = { records: [toJson(b)], entities: entityRanges(b.updates, ranges, 0, undefined) };
          if (spans !== undefined) {
            const layers: Record<string, Uint8Array> = {};
            deltaLayers({ packetId: 0x16, ...b }, '', layers);
            if (Object.keys(layers).length > 0) out.layers = layers;
          }
          return out;
        }
        const m = session.decodeMessage(bytes, spans, ranges);
        const out: DecodedMessage = {
          records: [toJson(m.packet)],
          entities: entityRanges(updatesOf(m.packet), ranges, m.compressed ? 0 : 1, m.compressed ? 'lz4' : undefined),
        };
        const layers: Record<string, Uint8Array> = {};
        if (m.compressed) layers.lz4 = m.payload;
        if (spans !== undefined) deltaLayers(m.packet, '', layers);
        if (Object.keys(layers).length > 0) out.layers = layers;
        return out;
      },
      state: () => tableOf(session),
    };
  },
  createEncoder(opts: OptionValues) {
    const bodyMode = opts.body === true;
    const lz4 = opts.lz4 === 'literal' ? 'literal' : 'fast';
    const delta = (typeof opts.delta === 'string' ? opts.delta : 'replay') as DeltaPolicy;
    return {
      encode(json: unknown): Uint8Array[] {
        if (json === null || typeof json !== 'object' || Array.isArray(json)) throw new EncodeError('', 'expected a JSON object as printed by decode');
        return [bodyMode ? encodeBody(json, delta) : encodeMessage(json, { lz4, delta })];
      },
    };
  },
};

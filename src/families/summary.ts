/** Message summaries for the packet list and `tickwire stats`, with a fallback for adapters that give none. */
import type { DecodedMessage, FamilyAdapter, MessageSummary } from './types.js';

const TYPE_KEYS = ['type', 'opcodeName', 'packetName', 'kind', 'packet', 'record', 'name'];

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length <= 64 ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/**
 * The type of a capture record, as Wireshark's Info column would give it: the packet inside a
 * WebSocket message (`packet.type`, Diep), the message names of a datagram's chunks (Teeworlds;
 * the first three distinct names, then `+N`), or a control packet's kind.
 */
function captureType(o: Record<string, unknown>): string | undefined {
  const packet = str(obj(o.packet)?.type);
  if (packet !== undefined) return packet;
  if (Array.isArray(o.chunks)) {
    const names: string[] = [];
    for (const c of o.chunks) {
      const n = str(obj(c)?.msg);
      if (n !== undefined && !names.includes(n)) names.push(n);
    }
    if (names.length > 0) return names.length <= 3 ? names.join(', ') : `${names.slice(0, 3).join(', ')} +${names.length - 3}`;
  }
  const control = str(obj(o.control)?.type);
  if (control !== undefined) return `control ${control}`;
  return undefined;
}

/** The tick of a snapshot record that came with the message (a datagram that completed a snapshot). */
function snapshotTick(records: readonly unknown[]): number | undefined {
  for (const r of records) {
    const o = obj(r);
    if (o?.record === 'snapshot' && typeof o.tick === 'number') return o.tick;
  }
  return undefined;
}

/** The summary of a decoded message: the adapter's own, or one read from its first record's common fields. */
export function summarize(family: FamilyAdapter, m: DecodedMessage): MessageSummary {
  if (family.summarize) return family.summarize(m);
  const r = m.records[0];
  if (r === null || typeof r !== 'object') return { type: m.records.length === 0 ? '(no record)' : typeof r };
  const o = r as Record<string, unknown>;
  let type: string | undefined = captureType(o);
  if (type === undefined) for (const k of TYPE_KEYS) if ((type = str(o[k])) !== undefined) break;
  const body = o.body !== null && typeof o.body === 'object' ? (o.body as Record<string, unknown>) : undefined;
  const opcode = o.opcode ?? (o.frame as Record<string, unknown> | undefined)?.opcode;
  if (type === undefined && opcode !== undefined) type = `opcode ${String(opcode)}`;
  const tick = typeof o.tick === 'number' ? o.tick : typeof body?.tick === 'number' ? (body.tick as number) : snapshotTick(m.records);
  const out: MessageSummary = { type: type ?? family.name };
  if (tick !== undefined) out.tick = tick;
  if (typeof o.time === 'number') out.time = o.time;
  if (typeof o.direction === 'string') out.direction = o.direction;
  return out;
}

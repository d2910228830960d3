/** Message summaries for the packet list and `tickwire stats`, with a fallback for adapters that give none. */
import type { DecodedMessage, FamilyAdapter, MessageSummary } from './types.js';

const TYPE_KEYS = ['type', 'opcodeName', 'packetName', 'kind', 'packet', 'record', 'name'];

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v.length <= 64 ? v : undefined;
}

/** The summary of a decoded message: the adapter's own, or one read from its first record's common fields. */
export function summarize(family: FamilyAdapter, m: DecodedMessage): MessageSummary {
  if (family.summarize) return family.summarize(m);
  const r = m.records[0];
  if (r === null || typeof r !== 'object') return { type: m.records.length === 0 ? '(no record)' : typeof r };
  const o = r as Record<string, unknown>;
  let type: string | undefined;
  for (const k of TYPE_KEYS) if ((type = str(o[k])) !== undefined) break;
  const body = o.body !== null && typeof o.body === 'object' ? (o.body as Record<string, unknown>) : undefined;
  const opcode = o.opcode ?? (o.frame as Record<string, unknown> | undefined)?.opcode;
  if (type === undefined && opcode !== undefined) type = `opcode ${String(opcode)}`;
  const tick = typeof o.tick === 'number' ? o.tick : typeof body?.tick === 'number' ? (body.tick as number) : undefined;
  const out: MessageSummary = { type: type ?? family.name };
  if (tick !== undefined) out.tick = tick;
  if (typeof o.time === 'number') out.time = o.time;
  if (typeof o.direction === 'string') out.direction = o.direction;
  return out;
}

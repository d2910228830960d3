/**
 * Bandwidth statistics over a stream of decoded messages, shared by `tickwire stats`
 * and the inspector's Statistics view: bytes and counts per message type, per entity
 * type and per field, and bytes per second where the input has times.
 */
import type { Span } from '../core/spans.js';
import type { EntityByteRange, EntityTable, MessageSummary } from './types.js';

export interface Tally {
  count: number;
  bytes: number;
}

export interface EntityTypeTally {
  created: number;
  updated: number;
  removed: number;
  bytes: number;
}

export interface StreamStats {
  messages: number;
  bytes: number;
  /** Seconds from the first to the last message's time, where the input has times. */
  seconds?: number;
  bytesPerSecond?: number;
  byMessageType: Record<string, Tally>;
  /** Per entity type: creates, updates, removes, and the bytes of its entities in the messages. */
  byEntityType: Record<string, EntityTypeTally>;
  /** Per field (`Type.field`): how many times it changed. */
  fieldChanges: Record<string, number>;
  /** Per field name: how many spans and bytes it has on the wire (leaf spans). */
  fieldBytes: Record<string, Tally>;
}

/**
 * A message's size on the wire: its own bytes, or for a message read from a capture
 * that keeps them in a layer instead (a WoW frame, a Diep WebSocket message), its first layer.
 */
export function wireSize(m: { bytes?: Uint8Array | undefined; layers?: Record<string, Uint8Array> | undefined }): number {
  if (m.bytes !== undefined) return m.bytes.length;
  for (const k in m.layers ?? {}) return m.layers![k]!.length;
  return 0;
}

/** One message's contribution. */
export interface MessageFacts {
  summary: MessageSummary;
  size: number;
  state?: EntityTable | undefined;
  entities?: readonly EntityByteRange[] | undefined;
  spans?: readonly Span[] | undefined;
}

/** Field name of a span path: the last segment without indices (`blocks[2].movement.x` → `x`). */
function leafName(path: string): string {
  const s = path.slice(path.lastIndexOf('.') + 1).replace(/\[\d+\]/g, '');
  return s === '' ? path || '(message)' : s;
}

export class StatsCollector {
  readonly stats: StreamStats = { messages: 0, bytes: 0, byMessageType: {}, byEntityType: {}, fieldChanges: {}, fieldBytes: {} };
  private readonly typeOf = new Map<string, string>();
  private first: number | undefined;
  private last: number | undefined;

  private entity(t: string): EntityTypeTally {
    return (this.stats.byEntityType[t] ??= { created: 0, updated: 0, removed: 0, bytes: 0 });
  }

  add(m: MessageFacts): void {
    const st = this.stats;
    st.messages++;
    st.bytes += m.size;
    const mt = (st.byMessageType[m.summary.type] ??= { count: 0, bytes: 0 });
    mt.count++;
    mt.bytes += m.size;
    if (m.summary.time !== undefined) {
      this.first ??= m.summary.time;
      this.last = m.summary.time;
    }
    if (m.state !== undefined) {
      for (const row of m.state.rows) {
        this.typeOf.set(row.id, row.type);
        if (row.changed.length === 0 && !row.created) continue;
        const e = this.entity(row.type);
        if (row.created) e.created++;
        else e.updated++;
        for (const f of row.changed) st.fieldChanges[`${row.type}.${f}`] = (st.fieldChanges[`${row.type}.${f}`] ?? 0) + 1;
      }
      for (const id of m.state.removed) this.entity(this.typeOf.get(id) ?? '(unknown)').removed++;
    }
    for (const r of m.entities ?? []) {
      const t = this.typeOf.get(r.id);
      if (t !== undefined) this.entity(t).bytes += r.end - r.start;
    }
    for (const s of m.spans ?? []) {
      if (s.kind === 'struct' || s.kind === 'group' || s.kind === 'array' || s.kind === 'message') continue;
      const x = (st.fieldBytes[leafName(s.path)] ??= { count: 0, bytes: 0 });
      x.count++;
      x.bytes += s.end - s.start;
    }
    if (this.first !== undefined && this.last !== undefined && this.last > this.first) {
      st.seconds = this.last - this.first;
      st.bytesPerSecond = st.bytes / st.seconds;
    }
  }
}

/** Rows of a table, largest first. */
export function statsTables(st: StreamStats): Array<{ title: string; head: string[]; rows: Array<Array<string | number>> }> {
  const byBytes = <T extends { bytes: number }>(o: Record<string, T>) => Object.entries(o).sort((a, b) => b[1].bytes - a[1].bytes);
  return [
    {
      title: 'per message type',
      head: ['type', 'messages', 'bytes', 'bytes/msg'],
      rows: byBytes(st.byMessageType).map(([k, v]) => [k, v.count, v.bytes, (v.bytes / v.count).toFixed(1)]),
    },
    {
      title: 'per entity type',
      head: ['type', 'created', 'updated', 'removed', 'bytes'],
      rows: byBytes(st.byEntityType).map(([k, v]) => [k, v.created, v.updated, v.removed, v.bytes]),
    },
    {
      title: 'per field (changes)',
      head: ['field', 'changes'],
      rows: Object.entries(st.fieldChanges)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => [k, v]),
    },
    { title: 'per field (bytes on the wire)', head: ['field', 'spans', 'bytes'], rows: byBytes(st.fieldBytes).map(([k, v]) => [k, v.count, v.bytes]) },
  ];
}

export function statsHeadline(st: StreamStats): string {
  return `${st.messages} messages, ${st.bytes} bytes${st.bytesPerSecond !== undefined ? `, ${st.seconds!.toFixed(3)} s, ${st.bytesPerSecond.toFixed(0)} bytes/s` : ''}`;
}

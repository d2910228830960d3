/**
 * `tickwire stats <family> FILE`: what a game developer asks first about
 * bandwidth — bytes and counts per message type, per entity type and per field
 * over a stream, bytes per second where the input has times; `--csv` exports the
 * entity table over time (one row per entity per message, one column per field).
 */
import { parseCommand, inputFile } from './args.js';
import { decodeAll, where, type DecodeSource } from './messages.js';
import type { Io } from './input.js';
import { UsageError } from './usage.js';
import { summarize } from '../families/summary.js';
import type { FamilyAdapter } from '../families/types.js';

interface Tally {
  count: number;
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
  byEntityType: Record<string, { created: number; updated: number; removed: number; bytes: number }>;
  /** Per field (`Type.field`): how many times it changed, and the bytes of its spans. */
  byField: Record<string, Tally>;
}

function bump(t: Record<string, Tally>, k: string, bytes: number): void {
  const x = (t[k] ??= { count: 0, bytes: 0 });
  x.count++;
  x.bytes += bytes;
}

/** Field name of a span path: the last segment without indices (`blocks[2].movement.x` → `x`). */
function leafName(path: string): string {
  const s = path.slice(path.lastIndexOf('.') + 1).replace(/\[\d+\]/g, '');
  return s === '' ? path : s;
}

export function collectStats(family: FamilyAdapter, src: DecodeSource, io: Io): { stats: StreamStats; failed: number } {
  const st: StreamStats = { messages: 0, bytes: 0, byMessageType: {}, byEntityType: {}, byField: {} };
  const decoder = family.createDecoder(src.values);
  const typeOf = new Map<string, string>();
  let first: number | undefined;
  let last: number | undefined;
  let failed = 0;
  for (const item of decodeAll({ ...src, withSpans: true }, decoder)) {
    if (!item.ok) {
      failed++;
      io.stderr.write(`tickwire: ${where(item, true)}${item.error.message}\n`);
      if (item.whole === true) break;
      continue;
    }
    const m = item.message;
    const sum = summarize(family, m);
    const size = item.size || (item.spans?.spans.reduce((a, s) => (s.layer === undefined ? Math.max(a, s.end) : a), 0) ?? 0);
    st.messages++;
    st.bytes += size;
    bump(st.byMessageType, sum.type, size);
    if (sum.time !== undefined) {
      first ??= sum.time;
      last = sum.time;
    }
    const table = decoder.state?.();
    if (table !== undefined) {
      for (const row of table.rows) {
        typeOf.set(row.id, row.type);
        if (row.changed.length === 0) continue;
        const e = (st.byEntityType[row.type] ??= { created: 0, updated: 0, removed: 0, bytes: 0 });
        if (row.created) e.created++;
        else e.updated++;
        for (const f of row.changed) bump(st.byField, `${row.type}.${f}`, 0);
      }
      for (const id of table.removed) {
        const t = typeOf.get(id) ?? '(unknown)';
        (st.byEntityType[t] ??= { created: 0, updated: 0, removed: 0, bytes: 0 }).removed++;
      }
    }
    for (const r of m.entities ?? []) {
      const t = typeOf.get(r.id);
      if (t !== undefined) (st.byEntityType[t] ??= { created: 0, updated: 0, removed: 0, bytes: 0 }).bytes += r.end - r.start;
    }
    // bytes per field: the leaf spans (those no other span nests inside are counted once by their own range)
    for (const s of item.spans?.spans ?? []) {
      if (s.kind === 'struct' || s.kind === 'group' || s.kind === 'array') continue;
      const k = `(bytes).${leafName(s.path)}`;
      const x = (st.byField[k] ??= { count: 0, bytes: 0 });
      x.bytes += s.end - s.start;
      x.count++;
    }
  }
  if (first !== undefined && last !== undefined && last > first) {
    st.seconds = last - first;
    st.bytesPerSecond = st.bytes / st.seconds;
  }
  return { stats: st, failed };
}

function table(title: string, head: string[], rows: Array<Array<string | number>>): string {
  const all = [head, ...rows.map((r) => r.map(String))];
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  return `${title}\n${line(head)}\n${all.slice(1).map(line).join('\n')}\n`;
}

export function renderStats(st: StreamStats): string {
  const byBytes = <T extends { bytes: number }>(o: Record<string, T>) => Object.entries(o).sort((a, b) => b[1].bytes - a[1].bytes);
  let out = `${st.messages} messages, ${st.bytes} bytes${st.bytesPerSecond !== undefined ? `, ${st.seconds!.toFixed(3)} s, ${st.bytesPerSecond.toFixed(0)} bytes/s` : ''}\n\n`;
  out += table('per message type', ['type', 'messages', 'bytes', 'bytes/msg'], byBytes(st.byMessageType).map(([k, v]) => [k, v.count, v.bytes, (v.bytes / v.count).toFixed(1)]));
  out += `\n${table('per entity type', ['type', 'created', 'updated', 'removed', 'bytes'], byBytes(st.byEntityType).map(([k, v]) => [k, v.created, v.updated, v.removed, v.bytes]))}`;
  const fields = Object.entries(st.byField).filter(([k]) => !k.startsWith('(bytes).')).sort((a, b) => b[1].count - a[1].count);
  out += `\n${table('per field (changes)', ['field', 'changes'], fields.map(([k, v]) => [k, v.count]))}`;
  const bytes = Object.entries(st.byField).filter(([k]) => k.startsWith('(bytes).')).sort((a, b) => b[1].bytes - a[1].bytes);
  out += `\n${table('per field (bytes on the wire)', ['field', 'spans', 'bytes'], bytes.map(([k, v]) => [k.slice(8), v.count, v.bytes]))}`;
  return out;
}

function csvCell(v: unknown): string {
  const s = v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** Two passes over the input: the first finds every field name, the second writes the rows. */
function writeCsv(family: FamilyAdapter, src: DecodeSource, io: Io): number {
  const columns: string[] = [];
  const seen = new Set<string>();
  let failed = 0;
  const pass = (write: boolean) => {
    const decoder = family.createDecoder(src.values);
    for (const item of decodeAll(src, decoder)) {
      if (!item.ok) {
        if (!write) {
          failed++;
          io.stderr.write(`tickwire: ${where(item, true)}${item.error.message}\n`);
        }
        if (item.whole === true) break;
        continue;
      }
      const t = decoder.state?.();
      if (t === undefined) throw new UsageError(`${family.name} keeps no entity table: --csv needs one`);
      const tick = summarize(family, item.message).tick;
      for (const row of t.rows) {
        if (!write) {
          for (const k of Object.keys(row.fields)) if (!seen.has(k)) seen.add(k), columns.push(k);
          continue;
        }
        io.stdout.write(`${[item.index + 1, tick, row.id, row.type, ...columns.map((c) => row.fields[c])].map(csvCell).join(',')}\n`);
      }
    }
  };
  pass(false);
  io.stdout.write(`${['message', 'tick', 'id', 'type', ...columns].map(csvCell).join(',')}\n`);
  pass(true);
  return failed > 0 ? 1 : 0;
}

export function statsCommand(args: string[], io: Io): number {
  const { family, values, positionals } = parseCommand(args, { format: { type: 'string' }, csv: { type: 'boolean' }, hex: { type: 'string' } });
  const format = (values.format as string | undefined) ?? 'table';
  if (format !== 'table' && format !== 'json') throw new UsageError(`--format must be table or json, not ${JSON.stringify(format)}`);
  const file = inputFile(family, values, positionals);
  let stdin: Uint8Array | undefined;
  const cachedIo: Io = { ...io, readStdin: () => (stdin ??= io.readStdin()) };
  const src: DecodeSource = { io: cachedIo, family, values, file, hex: values.hex as string | undefined, stream: true, withSpans: false };
  if (values.csv === true) return writeCsv(family, src, cachedIo);
  const { stats, failed } = collectStats(family, src, cachedIo);
  io.stdout.write(format === 'json' ? `${JSON.stringify(stats, null, 2)}\n` : renderStats(stats));
  return failed > 0 ? 1 : 0;
}

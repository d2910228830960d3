/**
 * `tickwire stats <family> FILE`: what a game developer asks first about
 * bandwidth — bytes and counts per message type, per entity type and per field
 * over a stream, bytes per second where the input has times; `--csv` exports the
 * entity table over time (one row per entity per message, one column per field).
 */
import { parseCommand, inputFile } from './args.js';
import { createDecoder, decodeAll, where, type DecodeSource } from './messages.js';
import type { Io } from './input.js';
import { UsageError } from './usage.js';
import { summarize } from '../families/summary.js';
import type { FamilyAdapter } from '../families/types.js';
import { StatsCollector, statsHeadline, statsTables, wireSize, type StreamStats } from '../families/stats.js';

export function collectStats(family: FamilyAdapter, src: DecodeSource, io: Io): { stats: StreamStats; failed: number } {
  const decoder = createDecoder(src);
  const c = new StatsCollector();
  let failed = 0;
  for (const item of decodeAll({ ...src, withSpans: true, withState: true }, decoder)) {
    if (!item.ok) {
      failed++;
      io.stderr.write(`tickwire: ${where(item, true)}${item.error.message}\n`);
      if (item.whole === true) break;
      continue;
    }
    const m = item.message;
    const spans = item.spans?.spans ?? m.spans;
    const size = item.size || wireSize(m) || (spans ?? []).reduce((a, s) => (s.layer === undefined ? Math.max(a, s.end) : a), 0);
    c.add({ summary: summarize(family, m), size, state: m.state ?? decoder.state?.(), entities: m.entities, spans });
  }
  return { stats: c.stats, failed };
}

function table(title: string, head: string[], rows: Array<Array<string | number>>): string {
  const all = [head, ...rows.map((r) => r.map(String))];
  const w = head.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(w[i]!) : c.padStart(w[i]!))).join('  ');
  return `${title}\n${line(head)}\n${all.slice(1).map(line).join('\n')}\n`;
}

export function renderStats(st: StreamStats): string {
  return `${statsHeadline(st)}\n\n${statsTables(st)
    .map((t) => table(t.title, t.head, t.rows))
    .join('\n')}`;
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
    const decoder = createDecoder(src);
    for (const item of decodeAll({ ...src, withState: true }, decoder)) {
      if (!item.ok) {
        if (!write) {
          failed++;
          io.stderr.write(`tickwire: ${where(item, true)}${item.error.message}\n`);
        }
        if (item.whole === true) break;
        continue;
      }
      // a whole-file reader (a pcap, a demo) gives the state with each message
      const t = item.message.state ?? decoder.state?.();
      if (t === undefined) throw new UsageError(`${family.name} keeps no entity table: --csv needs one`);
      const tick = summarize(family, item.message).tick;
      for (const row of t.rows) {
        if (!write) {
          for (const k of Object.keys(row.fields)) {
            if (seen.has(k)) continue;
            seen.add(k);
            columns.push(k);
          }
          continue;
        }
        io.stdout.write(`${[item.index + 1, tick, row.id, row.type, ...columns.map((c) => row.fields[c])].map(csvCell).join(',')}\n`);
      }
    }
  };
  pass(false);
  // a field's column is `fields.NAME`: a field may be called `tick` or `type` (Teeworlds items) like a fixed column
  io.stdout.write(`${['message', 'tick', 'id', 'type', ...columns.map((c) => `fields.${c}`)].map(csvCell).join(',')}\n`);
  pass(true);
  return failed > 0 ? 1 : 0;
}

export function statsCommand(args: string[], io: Io): number {
  const { family, values, positionals } = parseCommand(args, { format: { type: 'string' }, csv: { type: 'boolean' }, hex: { type: 'string' } });
  const format = (values.format as string | undefined) ?? 'table';
  if (format !== 'table' && format !== 'json') throw new UsageError(`--format must be table or json, not ${JSON.stringify(format)}`);
  const file = inputFile(family, values, positionals);
  if (values.hex !== undefined && file !== undefined) throw new UsageError('give FILE or --hex, not both');
  let stdin: Uint8Array | undefined;
  const cachedIo: Io = { ...io, readStdin: () => (stdin ??= io.readStdin()) };
  const src: DecodeSource = { io: cachedIo, family, values, file, hex: values.hex as string | undefined, stream: true, sniff: true, withSpans: false };
  if (values.csv === true) return writeCsv(family, src, cachedIo);
  const { stats, failed } = collectStats(family, src, cachedIo);
  io.stdout.write(format === 'json' ? `${JSON.stringify(stats, null, 2)}\n` : renderStats(stats));
  return failed > 0 ? 1 : 0;
}

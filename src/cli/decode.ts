/** `tickwire decode`: messages in, JSON records out, streamed (memory does not grow with the number of messages). */
import { renderTree } from './tree.js';
import { parseCommand, inputFile } from './args.js';
import { decodeAll, where, type DecodeSource } from './messages.js';
import type { Io } from './input.js';
import { UsageError } from './usage.js';
import type { Span } from '../core/spans.js';
import { DecodeError } from '../core/errors.js';

const FORMATS = ['json', 'jsonl', 'tree', 'spans'];

/** Writes records as they come; `json` becomes one array (or one object for a single record of a single message). */
class RecordWriter {
  private first = true;
  private held: unknown[] | undefined;
  private decided = false;
  constructor(
    private readonly io: Io,
    private readonly format: string,
  ) {}
  /** Before the first write: is the output an array whatever the count (a stream, a whole-file capture)? */
  decide(many: boolean): void {
    if (this.decided) return;
    this.decided = true;
    if (this.format === 'json' && !many) this.held = [];
  }
  write(records: readonly unknown[]): void {
    if (this.format === 'jsonl') for (const r of records) this.io.stdout.write(`${JSON.stringify(r)}\n`);
    else if (this.format === 'tree') for (const r of records) this.io.stdout.write(`${renderTree(r)}\n\n`);
    else if (this.held !== undefined) for (const r of records) this.held.push(r);
    else
      for (const r of records) {
        this.io.stdout.write(`${this.first ? '[\n' : ',\n'}${indent(JSON.stringify(r, null, 2))}`);
        this.first = false;
      }
  }
  /** After an error thrown mid-stream: ends an array already begun, so that what was written stays valid JSON. */
  abort(): void {
    if (this.format === 'json' && this.held === undefined && !this.first) this.close();
  }
  close(): void {
    if (this.format !== 'json') return;
    if (this.held !== undefined) {
      const v = this.held.length === 1 ? this.held[0] : this.held;
      this.io.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
    } else this.io.stdout.write(this.first ? '[]\n' : '\n]\n');
  }
}

function indent(s: string): string {
  return `  ${s.replace(/\n/g, '\n  ')}`;
}

function spanRecord(s: Span): Record<string, unknown> {
  return { record: s.record ?? 0, path: s.path, start: s.start, end: s.end, ...(s.layer !== undefined ? { layer: s.layer } : {}) };
}

export function decodeCommand(args: string[], io: Io): number {
  const { family, values, positionals } = parseCommand(args, {
    hex: { type: 'string' },
    stream: { type: 'boolean' },
    format: { type: 'string' },
    'keep-going': { type: 'boolean' },
  });
  const format = (values.format as string | undefined) ?? 'json';
  if (!FORMATS.includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  const file = inputFile(family, values, positionals);
  const hex = values.hex as string | undefined;
  if (hex !== undefined && file !== undefined) throw new UsageError('give FILE or --hex, not both');
  const stream = values.stream === true;
  const keepGoing = values['keep-going'] === true;
  const src: DecodeSource = { io, family, values, file, hex, stream, withSpans: format === 'spans' };
  const writer = new RecordWriter(io, format);
  let failed = 0;
  try {
    for (const item of decodeAll(src)) {
      writer.decide(stream || item.whole === true);
      if (!item.ok) {
        failed++;
        if (keepGoing) {
          const e = item.error;
          io.stderr.write(
            `${JSON.stringify({ message: item.index + 1, ...(item.source ? { source: item.source } : {}), error: e.message, ...(e instanceof DecodeError ? { offset: e.offset, path: e.path } : {}) })}\n`,
          );
          continue;
        }
        writer.close();
        io.stderr.write(`tickwire: ${where(item, stream)}${item.error.message}\n`);
        return 1;
      }
      if (format === 'spans') {
        const rec = {
          message: item.index + 1,
          ...(item.source ? { source: item.source } : {}),
          records: item.message.records,
          // a whole-file reader's messages carry their spans; a stream decoder's went to the sink
          spans: (item.spans?.spans ?? item.message.spans ?? []).map(spanRecord),
        };
        io.stdout.write(`${JSON.stringify(rec)}\n`);
      } else writer.write(item.message.records);
    }
  } catch (e) {
    writer.abort();
    throw e;
  }
  writer.close();
  if (failed > 0) io.stderr.write(`tickwire: ${failed} bad message${failed === 1 ? '' : 's'}\n`);
  return failed > 0 ? 1 : 0;
}

/**
 * The `tickwire` command line.
 *
 *   tickwire decode <family> [FILE|-] [--hex STRING] [--stream] [--format json|jsonl|tree] [family options]
 *   tickwire encode <family> [FILE|-] [--stream] [--hex] [family options]
 *   tickwire watch  <family> TARGET [family options]
 *   tickwire families
 *
 * Exit codes: 0 ok, 1 bad input (one line naming the byte offset and field path), 2 usage.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DecodeError, EncodeError } from '../core/errors.js';
import { fromHex, parseHexLines, toHex } from '../core/hex.js';
import { FAMILIES, findFamily } from '../families/registry.js';
import type { DecodedMessage, FamilyAdapter, OptionValues } from '../families/types.js';
import { renderTree } from './tree.js';

export interface Io {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string): unknown };
  /** Reads all of standard input. */
  readStdin(): Uint8Array;
}

class UsageError extends Error {}
class InputError extends Error {}

const USAGE = `usage:
  tickwire decode <family> [FILE|-] [--hex STRING] [--stream] [--format json|jsonl|tree] [options]
  tickwire encode <family> [FILE|-] [--stream] [--hex] [options]
  tickwire watch <family> TARGET [options]
  tickwire families
  tickwire help <family>

families: ${FAMILIES.map((f) => f.name).join(', ')}

decode reads one binary message (FILE, or standard input for - or no FILE), or
--hex STRING. With --stream it reads a sequence of messages, carrying state from
one to the next: a text file of hex messages, one per line, or a directory of
binary files taken in file-name order.
encode reads the JSON that decode prints (one object; with --stream JSON lines
or a JSON array) and writes binary, or hex lines with --hex.
exit codes: 0 ok, 1 bad input, 2 usage error.`;

function familyHelp(f: FamilyAdapter): string {
  const opts = Object.entries(f.options).map(([k, o]) => {
    const choices = o.choices ? ` (${o.choices.join('|')})` : '';
    const def = o.default !== undefined ? ` [default: ${String(o.default)}]` : '';
    return `  --${k}${o.type === 'string' ? ' VALUE' : ''}  ${o.description}${choices}${def}`;
  });
  return `${f.name}: ${f.summary}\n${opts.length ? `options:\n${opts.join('\n')}` : 'no family options'}`;
}

function familyOptions(f: FamilyAdapter): ParseArgsConfig['options'] {
  const o: NonNullable<ParseArgsConfig['options']> = {};
  for (const [k, v] of Object.entries(f.options)) o[k] = { type: v.type };
  return o;
}

function checkChoices(f: FamilyAdapter, values: OptionValues): void {
  for (const [k, o] of Object.entries(f.options)) {
    const v = values[k];
    if (v === undefined && o.default !== undefined) values[k] = o.default;
    else if (typeof v === 'string' && o.choices && !o.choices.includes(v)) {
      throw new UsageError(`--${k} must be one of ${o.choices.join(', ')}, not ${JSON.stringify(v)}`);
    }
  }
}

function parseCommand(args: string[], common: NonNullable<ParseArgsConfig['options']>) {
  const famName = args[0];
  if (famName === undefined || famName.startsWith('-')) throw new UsageError('missing <family>');
  const family = findFamily(famName);
  if (family === undefined) throw new UsageError(`unknown family ${JSON.stringify(famName)} (known: ${FAMILIES.map((f) => f.name).join(', ')})`);
  let parsed;
  try {
    parsed = parseArgs({ args: args.slice(1), options: { ...familyOptions(family), ...common }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const values = parsed.values as OptionValues;
  checkChoices(family, values);
  return { family, values, positionals: parsed.positionals };
}

function readInputBytes(io: Io, file: string | undefined): Uint8Array {
  if (file === undefined || file === '-') return io.readStdin();
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

/** Messages of a stream: a directory of binary files in name order, or hex lines. */
function streamMessages(io: Io, file: string | undefined, read: () => Uint8Array = () => readInputBytes(io, file)): Uint8Array[] {
  if (file !== undefined && file !== '-') {
    let st;
    try {
      st = statSync(file);
    } catch (e) {
      throw new InputError(`cannot read ${file}: ${(e as Error).message}`);
    }
    if (st.isDirectory()) {
      const names = readdirSync(file)
        .filter((n) => statSync(join(file, n)).isFile() && !n.startsWith('.') && !/\.(md|txt|json)$/i.test(n))
        .sort();
      return names.map((n) => new Uint8Array(readFileSync(join(file, n))));
    }
  }
  return hexLines(new TextDecoder().decode(read()));
}

function isDirectory(file: string | undefined): boolean {
  if (file === undefined || file === '-') return false;
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/** One hex message per line; blank lines and `#` comments skipped (see `parseHexLines`). */
export function hexLines(text: string): Uint8Array[] {
  try {
    return parseHexLines(text);
  } catch (e) {
    if (e instanceof DecodeError) throw new InputError(`${e.path}: bad hex at character ${e.offset}: expected ${e.expected}`);
    throw e;
  }
}

function emit(io: Io, format: string, records: unknown[], stream: boolean): void {
  if (format === 'jsonl') {
    for (const r of records) io.stdout.write(`${JSON.stringify(r)}\n`);
  } else if (format === 'tree') {
    for (const r of records) io.stdout.write(`${renderTree(r)}\n\n`);
  } else {
    const v = !stream && records.length === 1 ? records[0] : records;
    io.stdout.write(`${JSON.stringify(v, null, 2)}\n`);
  }
}

function decodeCommand(args: string[], io: Io): number {
  const { family, values, positionals } = parseCommand(args, {
    hex: { type: 'string' },
    stream: { type: 'boolean' },
    format: { type: 'string' },
  });
  const format = (values.format as string | undefined) ?? 'json';
  if (!['json', 'jsonl', 'tree'].includes(format)) throw new UsageError(`--format must be json, jsonl or tree, not ${JSON.stringify(format)}`);
  if (positionals.length > 1) throw new UsageError(`one input at most, got ${positionals.length}`);
  // A family string option marked `inputFile` (e.g. `--pcap FILE`) names the input file too.
  const optFile = Object.entries(family.options).find(([k, o]) => (o as { inputFile?: boolean }).inputFile === true && typeof values[k] === 'string');
  if (optFile !== undefined && positionals.length > 0) throw new UsageError(`give FILE or --${optFile[0]}, not both`);
  const file = positionals[0] ?? (optFile === undefined ? undefined : (values[optFile[0]] as string));
  const stream = values.stream === true;
  const hex = values.hex as string | undefined;
  if (hex !== undefined && file !== undefined) throw new UsageError('give FILE or --hex, not both');

  let messages: Iterable<DecodedMessage> | undefined;
  // Read the input once: `decodeFile` looks at it first, the normal handling reuses the bytes (stdin can be read only once).
  let cached: Uint8Array | undefined;
  const readOnce = () => (cached ??= readInputBytes(io, file));
  const decoder = family.createDecoder(values);
  const records: unknown[] = [];
  const streaming = format === 'jsonl' || format === 'tree';
  let index = 0;
  const flush = (rs: unknown[]) => {
    if (streaming) emit(io, format, rs, true);
    else records.push(...rs);
  };
  try {
    if (family.decodeFile && hex === undefined && !isDirectory(file)) {
      messages = family.decodeFile(readOnce(), values);
    }
    if (messages !== undefined) {
      for (const m of messages) {
        flush(m.records);
        index++;
      }
    } else {
      let inputs: Uint8Array[];
      if (hex !== undefined) inputs = stream ? hexLines(hex) : [parseHexArg(hex)];
      else inputs = stream ? streamMessages(io, file, readOnce) : [readOnce()];
      for (const bytes of inputs) {
        flush(decoder.decode(bytes).records);
        index++;
      }
    }
  } catch (e) {
    if (!streaming && records.length > 0) emit(io, format, records, true);
    if (e instanceof DecodeError) {
      const where = stream || index > 0 ? `message ${index + 1}: ` : '';
      io.stderr.write(`tickwire: ${where}${e.message}\n`);
      return 1;
    }
    throw e;
  }
  if (!streaming) emit(io, format, records, stream || messages !== undefined);
  return 0;
}

function parseHexArg(hex: string): Uint8Array {
  try {
    return fromHex(hex);
  } catch (e) {
    if (e instanceof DecodeError) throw new InputError(`--hex: bad hex at character ${e.offset}: expected ${e.expected}`);
    throw e;
  }
}

function encodeCommand(args: string[], io: Io): number {
  const { family, values, positionals } = parseCommand(args, {
    hex: { type: 'boolean' },
    stream: { type: 'boolean' },
  });
  if (positionals.length > 1) throw new UsageError(`one input at most, got ${positionals.length}`);
  const text = new TextDecoder().decode(readInputBytes(io, positionals[0]));
  const stream = values.stream === true;
  let inputs: unknown[];
  try {
    const trimmed = text.trim();
    if (stream && !trimmed.startsWith('[')) {
      inputs = trimmed.split(/\r?\n/).filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
    } else {
      const v = JSON.parse(trimmed);
      inputs = stream && Array.isArray(v) ? v : [v];
    }
  } catch (e) {
    throw new InputError(`input is not JSON: ${(e as Error).message}`);
  }
  const encoder = family.createEncoder(values);
  for (let i = 0; i < inputs.length; i++) {
    let out: Uint8Array[];
    try {
      out = encoder.encode(inputs[i]);
    } catch (e) {
      if (e instanceof EncodeError) throw new InputError(`${inputs.length > 1 ? `record ${i + 1}: ` : ''}${e.message}`);
      throw e;
    }
    for (const m of out) io.stdout.write(values.hex === true ? `${toHex(m)}\n` : m);
  }
  return 0;
}

async function watchCommand(args: string[], io: Io): Promise<number> {
  const { family, values, positionals } = parseCommand(args, { format: { type: 'string' }, seconds: { type: 'string' } });
  if (family.watch === undefined) throw new UsageError(`${family.name} has no live client`);
  const target = positionals[0];
  if (target === undefined) throw new UsageError('missing TARGET (HOST:PORT)');
  const format = (values.format as string | undefined) ?? 'jsonl';
  for await (const r of family.watch(target, values)) emit(io, format === 'json' ? 'jsonl' : format, [r], true);
  return 0;
}

/** Run the CLI; returns the exit code. Never throws for bad input. */
export async function run(argv: string[], io: Io): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    switch (cmd) {
      case 'decode':
        return decodeCommand(rest, io);
      case 'encode':
        return encodeCommand(rest, io);
      case 'watch':
        return await watchCommand(rest, io);
      case 'serve':
        return await (await import('./serve.js')).serveCommand(rest, io);
      case 'families':
        for (const f of FAMILIES) io.stdout.write(`${f.name.padEnd(14)} ${f.summary}\n`);
        return 0;
      case 'help': {
        const f = rest[0] === undefined ? undefined : findFamily(rest[0]);
        io.stdout.write(`${f ? familyHelp(f) : USAGE}\n`);
        return 0;
      }
      case '--help':
      case '-h':
        io.stdout.write(`${USAGE}\n`);
        return 0;
      default:
        throw new UsageError(cmd === undefined ? 'missing command' : `unknown command ${JSON.stringify(cmd)}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`tickwire: ${e.message}\n${USAGE}\n`);
      return 2;
    }
    if (e instanceof InputError || e instanceof DecodeError || e instanceof EncodeError) {
      io.stderr.write(`tickwire: ${e.message}\n`);
      return 1;
    }
    io.stderr.write(`tickwire: internal error: ${e instanceof Error ? e.message : String(e)}\n`);
    if (process.env.TICKWIRE_DEBUG) io.stderr.write(`${(e as Error).stack}\n`);
    return 1;
  }
}

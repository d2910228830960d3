/** Command-line parsing shared by the subcommands: `<family> [positionals] [--options]`. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { findFamily } from '../families/registry.js';
import type { FamilyAdapter, OptionValues } from '../families/types.js';
import { DecodeError, EncodeError } from '../core/errors.js';
import { InputError, isDirectory } from './input.js';
import { UsageError, didYouMean, familyNames } from './usage.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

function familyOptions(f: FamilyAdapter): OptionSpec {
  const o: OptionSpec = {};
  for (const [k, v] of Object.entries(f.options)) o[k] = { type: v.type };
  return o;
}

function checkChoices(f: FamilyAdapter, values: OptionValues): void {
  for (const [k, o] of Object.entries(f.options)) {
    const v = values[k];
    if (v === undefined && o.default !== undefined) values[k] = o.default;
    else if (typeof v === 'string' && o.choices && !o.choices.includes(v)) {
      throw new UsageError(`--${k} must be one of ${o.choices.join(', ')}, not ${JSON.stringify(v)}${didYouMean(v, o.choices)}`);
    }
  }
}

export function parseCommand(args: string[], common: OptionSpec) {
  const famName = args[0];
  if (famName === undefined || famName.startsWith('-')) throw new UsageError('missing <family>');
  const family = findFamily(famName);
  if (family === undefined) throw new UsageError(`unknown family ${JSON.stringify(famName)}${didYouMean(famName, familyNames())}`);
  let parsed: ReturnType<typeof parseArgs>;
  const options = { ...familyOptions(family), ...common };
  try {
    parsed = parseArgs({ args: args.slice(1), options, allowPositionals: true, strict: true });
  } catch (e) {
    const m = /option '(--?[\w-]+)/.exec((e as Error).message);
    const hint = m
      ? didYouMean(
          m[1]!.replace(/^-+/, ''),
          Object.keys(options).map((k) => k),
        ).replace('mean ', 'mean --')
      : '';
    throw new UsageError(`${(e as Error).message.split('\n')[0]}${hint}`);
  }
  const values = parsed.values as OptionValues;
  checkChoices(family, values);
  return { family, values, positionals: parsed.positionals };
}

/** The input file: the positional, or a family option marked `inputFile` (`--pcap FILE`). */
export function inputFile(family: FamilyAdapter, values: OptionValues, positionals: string[]): string | undefined {
  if (positionals.length > 1) throw new UsageError(`one input at most, got ${positionals.length}`);
  const given = Object.entries(family.options).filter(([k, o]) => (o as { inputFile?: boolean }).inputFile === true && typeof values[k] === 'string');
  if (given.length > 1)
    throw new UsageError(`one input at most: give ${given.map(([k]) => `--${k}`).join(' or ')}, not ${given.length === 2 ? 'both' : 'several'}`);
  const optFile = given[0];
  if (optFile !== undefined && positionals.length > 0) throw new UsageError(`give FILE or --${optFile[0]}, not both`);
  // (a directory is a positional's stream of message files, never a capture)
  const optValue = optFile === undefined ? undefined : (values[optFile[0]] as string);
  if (optFile !== undefined && isDirectory(optValue)) throw new InputError(`--${optFile[0]} ${optValue}: the capture is a directory, not a file`);
  return positionals[0] ?? optValue;
}

/** Options whose value is data rather than a setting: a bad one is bad input (exit 1), not a usage error. */
const DATA_OPTIONS: ReadonlySet<string> = new Set(['session-key']);

/**
 * A bad option value found by the family (`--part-size abc`, `--server-port x`, no `--schema`): the adapter throws
 * an EncodeError or DecodeError whose path names the option (`part-size`, `--part-size`); the CLI makes it a
 * usage error (exit 2), but for a file it names that cannot be read (exit 1, as an input file). `decodeErrors:
 * false` where a DecodeError may come from the input's bytes (a whole-file reader, whose fields can share an
 * option's name, `version`).
 */
export function optionError(family: FamilyAdapter, e: unknown, decodeErrors = true, extra: readonly string[] = []): unknown {
  const isEncode = e instanceof EncodeError;
  if (!isEncode && !(decodeErrors && e instanceof DecodeError)) return e;
  const name = (e as EncodeError | DecodeError).path.replace(/^--?/, '');
  if (name === '' || !(Object.hasOwn(family.options, name) || extra.includes(name))) return e;
  const what = isEncode
    ? e.reason
    : `expected ${(e as DecodeError).expected}${(e as DecodeError).found === undefined ? '' : `, found ${(e as DecodeError).found}`}`;
  // (a file the option names that cannot be read stays bad input, as an input file that cannot be read: the adapter's
  // error has the system's error as its cause, as a --schema that is not JSON or not a schema has the parse error; so
  // does a key, data copied from elsewhere: test/wow-capture holds a bad --session-key to exit 1)
  if ((isEncode && e.cause !== undefined) || DATA_OPTIONS.has(name)) return e;
  return new UsageError(`--${name}: ${what}`);
}

/** `fn()`, with a bad option value it meets made a usage error (see `optionError`). */
export function withOptions<T>(family: FamilyAdapter, fn: () => T, decodeErrors = true): T {
  try {
    return fn();
  } catch (e) {
    throw optionError(family, e, decodeErrors);
  }
}

/** Longest a Node timer waits (2^31 - 1 ms): a longer or non-finite `--seconds` would fire at once. */
export const MAX_SECONDS = 2147483;

/** A `--seconds` value: a finite number in `lo`..MAX_SECONDS (`lo` excluded when `open`), else a usage error. */
export function secondsOption(v: unknown, name = 'seconds', lo = 0, open = true): number | undefined {
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
  if (!Number.isFinite(n) || (open ? n <= lo : n < lo) || n > MAX_SECONDS)
    throw new UsageError(`--${name} must be a number of seconds ${open ? 'above' : 'from'} ${lo} up to ${MAX_SECONDS} (24.8 days), not ${JSON.stringify(v)}`);
  return n;
}

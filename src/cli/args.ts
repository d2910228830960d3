/** Command-line parsing shared by the subcommands: `<family> [positionals] [--options]`. */
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { findFamily } from '../families/registry.js';
import type { FamilyAdapter, OptionValues } from '../families/types.js';
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
  let parsed;
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
  const optFile = Object.entries(family.options).find(([k, o]) => (o as { inputFile?: boolean }).inputFile === true && typeof values[k] === 'string');
  if (optFile !== undefined && positionals.length > 0) throw new UsageError(`give FILE or --${optFile[0]}, not both`);
  return positionals[0] ?? (optFile === undefined ? undefined : (values[optFile[0]] as string));
}

/**
 * The `tickwire` command line: dispatch to the subcommands (one file each).
 *
 *   tickwire decode <family> [FILE|DIR|-] [--hex STRING] [--stream] [--format json|jsonl|tree|spans] [--keep-going] [family options]
 *   tickwire encode <family> [FILE|-] [--stream] [--hex] [family options]
 *   tickwire stats  <family> [FILE|DIR|-] [--hex STRING] [--format table|json] [--csv]
 *   tickwire watch  <family> TARGET [--seconds N] [family options]
 *   tickwire families
 *
 * Exit codes: 0 ok, 1 bad input (one line naming the byte offset and field path), 2 usage.
 */
import { DecodeError, EncodeError } from '../core/errors.js';
import { FAMILIES, findFamily } from '../families/registry.js';
import { optionError, parseCommand, secondsOption } from './args.js';
import { decodeCommand } from './decode.js';
import { encodeCommand } from './encode.js';
import { InputError, type Io } from './input.js';
import { statsCommand } from './stats.js';
import { renderTree } from './tree.js';
import { COMMANDS, UsageError, asksHelp, commandUsage, didYouMean, familyHelp, familyNames, usage } from './usage.js';

export type { Io } from './input.js';
import { hexLineMessages } from './input.js';
export { hexLineMessages };

async function watchCommand(args: string[], io: Io): Promise<number> {
  const { family, values, positionals } = parseCommand(args, { format: { type: 'string' }, seconds: { type: 'string' } });
  if (family.watch === undefined) throw new UsageError(`${family.name} has no live client`);
  const target = positionals[0];
  if (target === undefined) throw new UsageError('missing TARGET (HOST:PORT)');
  const format = (values.format as string | undefined) ?? 'jsonl';
  if (format !== 'jsonl' && format !== 'tree') throw new UsageError(`--format must be one of jsonl, tree, not ${JSON.stringify(format)}`);
  secondsOption(values.seconds);
  let n = 0;
  let last: unknown;
  try {
    for await (const r of family.watch(target, values)) {
      n++;
      last = r;
      io.stdout.write(format === 'tree' ? `${renderTree(r)}\n\n` : `${JSON.stringify(r)}\n`);
    }
  } catch (e) {
    // an option the client checks (`--version`): a usage error; nothing else it throws comes from the command line
    throw optionError(family, e, false, ['seconds']);
  }
  // A live client ends with a record saying whether it ever joined (`joined: false`: nothing listening, refused, wrong version).
  const joined = last !== null && typeof last === 'object' ? (last as { joined?: unknown }).joined : undefined;
  if (n === 0 || joined === false) {
    const reason =
      last !== null && typeof last === 'object' && typeof (last as { reason?: unknown }).reason === 'string' ? `: ${(last as { reason: string }).reason}` : '';
    throw new InputError(`never joined ${target}${reason} (nothing listening, refused, or another --version?)`);
  }
  return 0;
}

/** Run the CLI; returns the exit code. Never throws for bad input. */
export async function run(argv: string[], io: Io): Promise<number> {
  const [cmd, ...rest] = argv;
  try {
    // `<command> --help`: that command's usage (serve and relay print their own)
    if (cmd !== undefined && cmd !== 'serve' && cmd !== 'relay' && (COMMANDS as readonly string[]).includes(cmd) && asksHelp(rest)) {
      io.stdout.write(`${commandUsage(cmd, rest[0] === undefined ? undefined : findFamily(rest[0]))}\n`);
      return 0;
    }
    switch (cmd) {
      case 'decode':
        return decodeCommand(rest, io);
      case 'encode':
        return encodeCommand(rest, io);
      case 'stats':
        return statsCommand(rest, io);
      case 'watch':
        return await watchCommand(rest, io);
      case 'serve':
        return await (await import('./serve.js')).serveCommand(rest, io);
      case 'relay':
        return await (await import('./relay.js')).relayCommand(rest, io);
      case 'families':
        if (rest.length > 0) throw new UsageError(`families takes no arguments, got ${JSON.stringify(rest[0])}`);
        for (const f of FAMILIES) io.stdout.write(`${f.name.padEnd(14)} ${f.summary}\n`);
        return 0;
      case 'help': {
        if (rest.length > 1) throw new UsageError(`help takes one <family> at most, got ${rest.length} arguments`);
        const f = rest[0] === undefined ? undefined : findFamily(rest[0]);
        if (rest[0] !== undefined && f === undefined) throw new UsageError(`unknown family ${JSON.stringify(rest[0])}${didYouMean(rest[0], familyNames())}`);
        io.stdout.write(`${f ? familyHelp(f) : usage()}\n`);
        return 0;
      }
      case '--help':
      case '-h':
        io.stdout.write(`${usage()}\n`);
        return 0;
      default:
        throw new UsageError(cmd === undefined ? 'missing command' : `unknown command ${JSON.stringify(cmd)}${didYouMean(cmd, COMMANDS)}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr.write(`tickwire: ${e.message}\n(tickwire --help for usage)\n`);
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

/** One hex message per line (blank lines and `#` comments skipped), all at once. */
export function hexLines(text: string): Uint8Array[] {
  return Array.from(hexLineMessages(text), (m) => m.bytes);
}

/** Usage text, usage errors, and "did you mean" hints for the `tickwire` command line. */
import { FAMILIES } from '../families/registry.js';
import type { FamilyAdapter } from '../families/types.js';

/** What decode reads and prints (the main usage and `decode --help` both say it). */
const DECODE_TEXT = `one binary message (FILE, or standard input for - or no FILE), or
--hex STRING. With --stream it reads a sequence of messages, carrying state from
one to the next: a text file of hex messages, one per line (blank lines and
# comments skipped), or a directory of message files (files named *.bin or with
no extension, not starting with '.', in file-name order). A text file of hex
lines given without --stream is refused with a hint.
--format spans prints, per message, its records and the byte spans of their
fields ({"message","records","spans":[{"record","path","start","end","layer"}]}).
--keep-going reports a bad message on standard error as a JSON line and goes on
(exit 1 at the end).`;

/** A wrong command line. Exit code 2: one line, and a hint where one helps. */
export class UsageError extends Error {}

export const COMMANDS = ['decode', 'encode', 'watch', 'stats', 'serve', 'relay', 'families', 'help'] as const;

export function usage(): string {
  return `usage:
  tickwire decode <family> [FILE|DIR|-] [--hex STRING] [--stream] [--format json|jsonl|tree|spans] [--keep-going] [options]
  tickwire encode <family> [FILE|-] [--stream] [--hex] [options]
  tickwire stats <family> [FILE|DIR|-] [--hex STRING] [--format table|json] [--csv] [options]
  tickwire watch <family> TARGET [--seconds N] [--format jsonl|tree] [options]
  tickwire serve teeworlds [--version 0.7|ddnet|0.6] [--port N] [--map NAME|FILE] [options]   (serve --help)
  tickwire relay --nats nats://127.0.0.1:4222 --world NAME --listen ws://127.0.0.1:PORT [--udp PORT] [--schema FILE]
  tickwire families
  tickwire help <family>
  tickwire <command> --help

families: ${FAMILIES.map((f) => f.name).join(', ')}

decode reads ${DECODE_TEXT}
encode reads the JSON that decode prints (one object; with --stream JSON lines,
a JSON array or one object) and writes binary, or hex lines with --hex.
stats prints bytes and counts per message type, entity type and field
(--format json for JSON); --csv prints the entity table over time instead.
relay follows a world published to NATS JetStream and serves its clients over
WebSocket and UDP (tickwire relay --help; README, "Relays over NATS").
exit codes: 0 ok, 1 bad input, 2 usage error.`;
}

/** `tickwire <command> --help` (serve and relay print their own). */
const COMMAND_USAGE: Record<string, string> = {
  decode: `usage:
  tickwire decode <family> [FILE|DIR|-] [--hex STRING] [--stream] [--format json|jsonl|tree|spans] [--keep-going] [options]

Reads ${DECODE_TEXT}`,
  encode: `usage:
  tickwire encode <family> [FILE|-] [--stream] [--hex] [options]

Reads the JSON that decode prints (one object; with --stream JSON lines, a JSON
array or one object) and writes binary, or hex lines with --hex.`,
  stats: `usage:
  tickwire stats <family> [FILE|DIR|-] [--hex STRING] [--format table|json] [--csv] [options]

Prints bytes and counts per message type, entity type and field (--format json
for JSON); --csv prints the entity table over time instead. It reads what
decode --stream reads, and a file that is not hex text as one binary message.`,
  watch: `usage:
  tickwire watch <family> TARGET [--seconds N] [--format jsonl|tree] [options]

Joins the server at TARGET (HOST:PORT) as a live client and prints its records
as JSON lines (or --format tree) for --seconds (default 10); exit 1 if it never
joins.`,
  families: `usage:
  tickwire families

Lists the families, one a line with its summary.`,
  help: `usage:
  tickwire help [<family>]

Prints the usage, or a family's options.`,
};

/** A command's usage (with the family's options after a family that is known), for `<command> --help`. */
export function commandUsage(cmd: string, family?: FamilyAdapter): string {
  const text = COMMAND_USAGE[cmd] ?? usage();
  const end = cmd === 'families' || cmd === 'help' ? '' : '\nfamily options: tickwire help <family>.';
  return `${text}${family !== undefined && end !== '' ? `\n\n${familyHelp(family)}` : end}\nexit codes: 0 ok, 1 bad input, 2 usage error.`;
}

/** True when the arguments ask for help (`--help` or `-h` before any `--`). */
export function asksHelp(args: readonly string[]): boolean {
  for (const a of args) {
    if (a === '--') return false;
    if (a === '--help' || a === '-h') return true;
  }
  return false;
}

/** Edit distance, for hints. */
function distance(a: string, b: string): number {
  const d = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = d[0]!;
    d[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = d[j]!;
      d[j] = Math.min(d[j]! + 1, d[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return d[b.length]!;
}

/** ` (did you mean X?)` when one candidate is close, else ``. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? ` (did you mean ${best}?)` : '';
}

export function familyNames(): string[] {
  return FAMILIES.flatMap((f) => [f.name, ...(f.aliases ?? [])]);
}

export function familyHelp(f: FamilyAdapter): string {
  const opts = Object.entries(f.options).map(([k, o]) => {
    const choices = o.choices ? ` (${o.choices.join('|')})` : '';
    const def = o.default !== undefined ? ` [default: ${String(o.default)}]` : '';
    return `  --${k}${o.type === 'string' ? ' VALUE' : ''}  ${o.description}${choices}${def}`;
  });
  const common = f.watch ? '\n  --seconds N  watch: stop after N seconds (above 0, at most 2147483) [default: 10]; exit 1 if the client never joins' : '';
  return `${f.name}: ${f.summary}\n${opts.length || common ? `options:\n${opts.join('\n')}${common}` : 'no family options'}`;
}

/**
 * Where the CLI's messages come from: one binary file, standard input, `--hex`,
 * a text file of hex lines, or a directory of binary message files. Messages
 * are produced lazily, one at a time, so that memory does not grow with the
 * number of messages.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DecodeError } from '../core/errors.js';
import { fromHex } from '../core/hex.js';

/** Bad input that is not a decode error of a message (unreadable file, bad hex). Exit code 1. */
export class InputError extends Error {}

export interface Io {
  stdout: { write(chunk: string | Uint8Array): unknown };
  stderr: { write(chunk: string): unknown };
  /** Reads all of standard input. */
  readStdin(): Uint8Array;
}

/** One message of a stream and where it came from (`line 3`, `file 0003.bin`). */
export interface SourcedMessage {
  bytes: Uint8Array;
  source?: string;
  /** A line that is no message (bad hex), when the reader was asked to go on past it (`bytes` then empty). */
  error?: InputError;
}

export function readInputBytes(io: Io, file: string | undefined): Uint8Array {
  if (file === undefined || file === '-') {
    try {
      return io.readStdin();
    } catch (e) {
      throw new InputError(`cannot read standard input: ${(e as Error).message}`);
    }
  }
  try {
    return new Uint8Array(readFileSync(file));
  } catch (e) {
    throw new InputError(`cannot read ${file}: ${(e as Error).message}`);
  }
}

export function isDirectory(file: string | undefined): boolean {
  if (file === undefined || file === '-') return false;
  try {
    return statSync(file).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The directory rule: regular files whose name does not start with `.` and
 * whose extension is `.bin` or none at all, in file-name order (code-point
 * order, so `0002` before `0010` only when names are zero-padded).
 */
export function isMessageFileName(name: string): boolean {
  if (name.startsWith('.')) return false;
  const dot = name.lastIndexOf('.');
  return dot <= 0 || name.slice(dot).toLowerCase() === '.bin';
}

export function* directoryMessages(dir: string): Generator<SourcedMessage> {
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => isMessageFileName(n) && statSync(join(dir, n)).isFile())
      .sort();
  } catch (e) {
    throw new InputError(`cannot read ${dir}: ${(e as Error).message}`);
  }
  if (names.length === 0) throw new InputError(`${dir}: no message files (the rule: files named *.bin or with no extension, not starting with '.')`);
  for (const n of names) {
    let bytes: Uint8Array;
    try {
      bytes = new Uint8Array(readFileSync(join(dir, n)));
    } catch (e) {
      throw new InputError(`cannot read ${join(dir, n)}: ${(e as Error).message}`);
    }
    yield { bytes, source: `file ${n}` };
  }
}

/** A hex error written as the page writes it: 1-based line and column, and the bad character. */
function hexError(e: DecodeError, lineNo: number | undefined, lineText: string, colBase: number): InputError {
  const col = colBase + e.offset + 1;
  const ch = lineText[colBase + e.offset];
  const where = lineNo === undefined ? `column ${col}` : `line ${lineNo}, column ${col}`;
  const what =
    e.found === 'a lone digit' ? 'an odd number of hex digits (a lone digit here)' : `bad hex character ${JSON.stringify(ch ?? '')}, expected ${e.expected}`;
  return new InputError(`${where}: ${what}`);
}

/** One hex message from a string (the `--hex` argument, or a one-line file). */
export function parseHexMessage(text: string, lineNo?: number): Uint8Array {
  const lead = text.length - text.trimStart().length;
  try {
    return fromHex(text.trim());
  } catch (e) {
    if (e instanceof DecodeError) throw hexError(e, lineNo, text, lead);
    throw e;
  }
}

/**
 * Hex messages, one per line; blank lines and `#` comments skipped. Lazy. A bad line throws its InputError, or
 * with `goOn` comes out as a message with that `error` (a generator cannot resume after throwing).
 */
export function* hexLineMessages(text: string, goOn = false): Generator<SourcedMessage> {
  let start = text.charCodeAt(0) === 0xfeff ? 1 : 0; // a UTF-8 BOM
  let lineNo = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    start = end + 1;
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    let bytes: Uint8Array;
    try {
      bytes = parseHexMessage(line, lineNo);
    } catch (e) {
      if (!goOn || !(e instanceof InputError)) throw e;
      yield { bytes: new Uint8Array(), source: `line ${lineNo}`, error: e };
      continue;
    }
    yield { bytes, source: `line ${lineNo}` };
  }
}

/** A hex line: an optional `0x` / `0X`, then hex digits and the separators `fromHex` takes. */
const HEX_LINE = /^(?:0[xX])?[0-9a-fA-F\s:-]*$/;

/**
 * True when the bytes are a text file of hex lines: printable text (a UTF-8 BOM allowed) whose lines, blank and
 * `#` comment lines aside, are mostly hex (at least half, with a digit pair in all): such a file given without
 * `--stream` is never taken as one binary message, and a typo in one line is that line's error.
 */
export function looksLikeHexText(bytes: Uint8Array): boolean {
  const from = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  if (bytes.length - from < 2) return false;
  for (let i = from; i < bytes.length; i++) {
    const c = bytes[i]!;
    if (c < 9 || (c > 13 && c < 32) || c === 127) return false;
  }
  let hex = 0;
  let other = 0;
  let digits = 0;
  for (const line of new TextDecoder().decode(bytes.subarray(from)).split('\n')) {
    const t = line.trim();
    if (t === '' || t.startsWith('#')) continue;
    if (HEX_LINE.test(t)) {
      hex++;
      digits += t.replace(/^0[xX]|[^0-9a-fA-F]/g, '').length;
    } else other++;
  }
  return hex >= other && digits >= 2;
}

/** Number of non-blank, non-comment lines of a hex text. */
export function countHexLines(bytes: Uint8Array): number {
  let n = 0;
  for (const line of new TextDecoder().decode(bytes).split('\n')) {
    const t = line.trim();
    if (t !== '' && !t.startsWith('#')) n++;
  }
  return n;
}

/**
 * The decode loop shared by `decode` and `stats`: every input message through a
 * family's stream decoder, one at a time, with where it came from. A bad message
 * comes out as an error item; the caller decides to stop or go on.
 */
import { DecodeError } from '../core/errors.js';
import { SpanSink } from '../core/spans.js';
import type { DecodedMessage, FamilyAdapter, OptionValues, StreamDecoder } from '../families/types.js';
import {
  InputError,
  countHexLines,
  directoryMessages,
  hexLineMessages,
  isDirectory,
  looksLikeHexText,
  parseHexMessage,
  readInputBytes,
  type Io,
  type SourcedMessage,
} from './input.js';
import { UsageError } from './usage.js';
import { optionError, withOptions } from './args.js';

export type DecodedItem =
  | { ok: true; index: number; source?: string; size: number; whole?: boolean; message: DecodedMessage; spans?: SpanSink }
  | { ok: false; index: number; source?: string; size: number; whole?: boolean; error: DecodeError | InputError };

export interface DecodeSource {
  io: Io;
  family: FamilyAdapter;
  values: OptionValues;
  file: string | undefined;
  hex: string | undefined;
  stream: boolean;
  /** Record spans of every message (for `--format spans` and `stats`). */
  withSpans: boolean;
  /** Whole-file readers (a pcap, a demo): build the client state after every message (`stats`). */
  withState?: boolean;
  /**
   * With `stream`: a file (or standard input) is hex lines only when it looks like hex text (`looksLikeHexText`, as
   * `decode` tells), else one binary message (`stats`, which takes both).
   */
  sniff?: boolean;
}

/** The messages of a plain input (not a whole-file capture). */
function* inputMessages(src: DecodeSource, bytes: () => Uint8Array): Generator<SourcedMessage> {
  const { hex, stream, file } = src;
  if (hex !== undefined) {
    if (stream) yield* hexLineMessages(hex, true);
    else yield { bytes: parseHexMessage(hex), source: '--hex' };
    return;
  }
  if (isDirectory(file)) {
    if (!stream) throw new UsageError(`${file} is a directory: add --stream to decode its message files in order`);
    yield* directoryMessages(file!);
    return;
  }
  const b = bytes();
  // (sniffing: a text of only blank and comment lines is no message, as before)
  if (stream && (src.sniff !== true || looksLikeHexText(b) || countHexLines(b) === 0)) {
    yield* hexLineMessages(new TextDecoder().decode(b), true);
    return;
  }
  if (!stream && looksLikeHexText(b)) {
    const n = countHexLines(b);
    if (n === 1) {
      yield* hexLineMessages(new TextDecoder().decode(b));
      return;
    }
    throw new UsageError(
      `${file === undefined || file === '-' ? 'standard input' : file} is a text file of ${n} hex lines, not one binary message: add --stream`,
    );
  }
  yield { bytes: b };
}

/** The family's stream decoder; a bad option value it meets (`--part-size abc`, no `--schema`) is a usage error. */
export function createDecoder(src: DecodeSource): StreamDecoder {
  return withOptions(src.family, () => src.family.createDecoder(src.values));
}

/** Decode every message of the input, lazily. */
export function* decodeAll(src: DecodeSource, decoder: StreamDecoder = createDecoder(src)): Generator<DecodedItem> {
  let cached: Uint8Array | undefined;
  const readOnce = () => (cached ??= readInputBytes(src.io, src.file));
  if (src.family.decodeFile && src.hex === undefined && !isDirectory(src.file)) {
    // (an option the reader checks, `--server-port x`: a usage error; its DecodeErrors are the file's)
    const decodeFile = src.family.decodeFile;
    const whole = withOptions(
      src.family,
      () =>
        decodeFile(readOnce(), src.values, {
          spans: src.withSpans,
          state: src.withState === true,
          // (why a capture gave nothing: one line on standard error, the result still an empty one)
          note: (text) => src.io.stderr.write(`tickwire: ${text}\n`),
        }),
      false,
    );
    if (whole !== undefined) {
      let index = 0;
      const it = whole[Symbol.iterator]();
      for (;;) {
        let r: IteratorResult<DecodedMessage>;
        try {
          r = it.next();
        } catch (e) {
          if (e instanceof DecodeError) {
            yield { ok: false, index, size: 0, whole: true, error: e };
            return; // a whole-file reader cannot resume after an error
          }
          throw optionError(src.family, e, false);
        }
        if (r.done) return;
        yield { ok: true, index: index++, size: 0, whole: true, message: r.value };
      }
    }
  }
  let index = 0;
  for (const m of inputMessages(src, readOnce)) {
    if (m.error !== undefined) {
      // a line that is no message (bad hex): an error item like a bad message's, so that --keep-going goes on
      yield { ok: false, index: index++, source: m.source, size: 0, error: m.error };
      continue;
    }
    const spans = src.withSpans ? new SpanSink() : undefined;
    try {
      const message = decoder.decode(m.bytes, spans);
      yield { ok: true, index, source: m.source, size: m.bytes.length, message, ...(spans ? { spans } : {}) };
    } catch (e) {
      if (!(e instanceof DecodeError)) throw e;
      yield { ok: false, index, source: m.source, size: m.bytes.length, error: e };
    }
    index++;
  }
}

/** `message 3 (line 7): ` — where a bad message is, for error lines. */
export function where(item: DecodedItem, many: boolean): string {
  // (a bad hex line's error names its line already)
  if (!many || (!item.ok && !(item.error instanceof DecodeError))) return '';
  return `message ${item.index + 1}${item.source !== undefined && item.source !== '--hex' ? ` (${item.source})` : ''}: `;
}

export { InputError };

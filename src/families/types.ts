/**
 * Family adapters: what the user surfaces (the CLI and the inspector page) need
 * from a protocol family, built only on that family's public API.
 *
 * Each family has one file here (`scrapmechanic.ts`, ...) exporting a
 * `FamilyAdapter`; `registry.ts` lists them. Adding a family to the CLI and the
 * page is adding one file and one line.
 */
import type { SpanSink } from '../core/spans.js';
import type { InflatedZlib } from '../core/zlib.js';

/** A family-specific command-line option (`--version 0.7`, `--body`). */
export interface FamilyOption {
  type: 'string' | 'boolean';
  description: string;
  /** Allowed values of a string option. */
  choices?: readonly string[];
  default?: string | boolean;
}

/** Parsed option values, by option name (family options and the common ones). */
export type OptionValues = Record<string, string | boolean | undefined>;

/** One row of the client-side state table the inspector shows after each message. */
export interface EntityRow {
  /** Stable id as text (`"42"`, `"0x0000000000001234"`, `"3:17"`). */
  id: string;
  /** Entity kind (`"Character"`, `"Unit"`, `"NetObj/Harvestable"`). */
  type: string;
  /** Current field values, JSON-ready. */
  fields: Record<string, unknown>;
  /** Names of the fields changed by the last message (all of them for a new entity). */
  changed: string[];
  /** True when the last message created this entity. */
  created?: boolean;
}

/** Client-side state after a message. */
export interface EntityTable {
  rows: EntityRow[];
  /** Ids removed by the last message. */
  removed: string[];
}

/** Per-message breakdown for the inspector: which bytes belong to which entity. */
export interface EntityByteRange {
  id: string;
  start: number;
  end: number;
  /** Buffer the range refers to (same meaning as `Span.layer`). */
  layer?: string;
}

/** The result of decoding one input message. */
export interface DecodedMessage {
  /** Zero or more JSON-ready records (a slice that completes nothing yields none). */
  records: unknown[];
  /**
   * Inner buffers that spans refer to by `layer` (e.g. the LZ4-decompressed body),
   * so the page can show their hex too.
   */
  layers?: Record<string, Uint8Array>;
  /** Byte ranges by entity, when the family can tell. */
  entities?: EntityByteRange[];
  /**
   * For whole-file decoders (`decodeFile`: a pcap, a demo, a HAR): the message's own
   * bytes, the spans of its fields and the client state after it, so that the page
   * shows a capture's messages like bare ones. Stream decoders leave these out (the
   * caller has the bytes, passes a span sink, and asks `state()`).
   */
  bytes?: Uint8Array;
  spans?: import('../core/spans.js').Span[];
  state?: EntityTable;
}

/**
 * What a whole-file decoder (`decodeFile`) builds besides the records and bytes. Not
 * given: everything (the page). The CLI asks only for what it prints: spans for
 * `--format spans` and `stats`, the state for `stats`.
 */
export interface FileDetail {
  /** Fill `DecodedMessage.spans` (and the inner buffers they refer to). */
  spans: boolean;
  /** Fill `DecodedMessage.state`. */
  state: boolean;
  /** Told, in one line, why the file yielded no message (a capture with nothing of the family in it). */
  note?(text: string): void;
}

/** Stateful decoder over a stream of messages (state carries from one to the next). */
export interface StreamDecoder {
  /** Decode one message. Throws only `DecodeError`. Spans are recorded when a sink is given. */
  decode(bytes: Uint8Array, spans?: SpanSink): DecodedMessage;
  /** Client-side state after the last decoded message (for the inspector and `--format tree`). */
  state?(): EntityTable;
}

/** Stateful encoder: JSON as printed by the decoder in, messages out. */
export interface StreamEncoder {
  /** Encode one JSON record into zero or more messages. Throws `EncodeError` on bad input. */
  encode(json: unknown): Uint8Array[];
}

/** A bundled sample capture for `npm start` and the inspector. */
export interface Sample {
  /** Short id, unique within the family. */
  id: string;
  title: string;
  /** Path relative to the repository root (`samples/wow/....hex`). */
  path: string;
  /** `hex-lines`: one hex message per line; `binary`: one message; `pcap`: a capture file. */
  format: 'hex-lines' | 'binary' | 'pcap';
  /** Options to decode with (e.g. `{ version: '0.7' }`). */
  options?: OptionValues;
}

/** One line of the packet list and of `tickwire stats`: what kind of message, when. */
export interface MessageSummary {
  /** Message type (`SMSG_UPDATE_OBJECT`, `Update`, `snapshot/delta`, `NetworkUpdate`). */
  type: string;
  /** Game tick, where the message has one. */
  tick?: number;
  /** Capture time in seconds, where the input has one. */
  time?: number;
  /** `server→client` / `client→server`, where known. */
  direction?: string;
}

/** What a family's `prepare` made ahead of a decode, handed to `createDecoder` / `decodeFile`. */
export interface PreparedInput {
  /** zlib bodies inflated ahead by the platform (WoW's compressed frames; see core's `InflatedZlib`). */
  zlib?: InflatedZlib;
}

export interface FamilyAdapter {
  /** Name used on the command line: `scrapmechanic`, `teeworlds`, `wow`, `diep`. */
  name: string;
  aliases?: readonly string[];
  /** One line for `tickwire --help`. */
  summary: string;
  /** Family-specific options for `decode` / `encode`. */
  options: Record<string, FamilyOption>;
  createDecoder(opts: OptionValues, prepared?: PreparedInput): StreamDecoder;
  createEncoder(opts: OptionValues): StreamEncoder;
  /** Bundled samples. */
  samples: readonly Sample[];
  /**
   * Optional: decode a whole input file that is not a message stream (e.g. a pcap).
   * Return undefined to fall back to the normal handling.
   */
  decodeFile?(bytes: Uint8Array, opts: OptionValues, detail?: FileDetail, prepared?: PreparedInput): Iterable<DecodedMessage> | undefined;
  /**
   * Optional, asynchronous work ahead of a decode that makes the decode itself faster (the
   * inspector's worker awaits it): `messages` when the input is a list of messages (hex lines),
   * `file` otherwise. Undefined when there is nothing to do. WoW: the compressed frames' zlib
   * bodies inflated by the platform's DecompressionStream when there are many.
   */
  prepare?(input: { messages: readonly Uint8Array[] } | { file: Uint8Array }, opts: OptionValues): Promise<PreparedInput | undefined>;
  /** Optional: the message type, tick and time of a decoded message (else read from the record's common fields). */
  summarize?(message: DecodedMessage): MessageSummary;
  /** Optional: `tickwire watch <family> TARGET`, a live session printing records. */
  watch?(target: string, opts: OptionValues): AsyncIterable<unknown>;
}

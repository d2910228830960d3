/**
 * The inspector's model: turns an input (a bundled sample, pasted hex, a dropped file)
 * into a list of decoded messages, each with its spans, inner buffers, entity byte
 * ranges, the client-side state after it, or the error it raised.
 *
 * No DOM here, and no decoding of its own: every byte is read by the family adapters
 * (`FamilyAdapter` in src/families/types.ts), the same code the CLI runs.
 */
import { DecodeError, parseHexLines as parseLines, SpanSink, toJsonValue } from '../../core/index.js';
import type { Span } from '../../core/index.js';
import type {
  DecodedMessage,
  EntityByteRange,
  EntityRow,
  EntityTable,
  FamilyAdapter,
  MessageSummary,
  OptionValues,
  PreparedInput,
  Sample,
  StreamDecoder,
} from '../../families/types.js';
import { summarize } from '../../families/summary.js';

/** What went wrong in one message. */
export interface MessageError {
  /** One line, the DecodeError's own text. */
  message: string;
  /** Byte offset (meaningful when `decodeError`). */
  offset: number;
  path: string;
  /** True for a DecodeError; false for anything else (a decoder bug, shown as such). */
  decodeError: boolean;
  /**
   * The inner buffer the offset refers to, when the decoder was inside one (its span
   * sink's `layer` was still set when it threw); absent for the message itself.
   */
  layer?: string;
}

/** One decoded (or failed) message of a session. */
export interface MessageView {
  index: number;
  /** The input bytes, when known (a bare message, or a message of a whole file that gives them: a capture frame, a demo chunk). */
  bytes: Uint8Array | undefined;
  records: unknown[];
  layers: Record<string, Uint8Array>;
  entities: EntityByteRange[];
  /** Spans recorded by the decoder (also the ones recorded before an error). */
  spans: Span[];
  /**
   * Client-side state after this message (a JSON copy), when the family keeps one. Kept
   * whole only on keyframes (every KEYFRAME_EVERY messages); `stateAt` rebuilds the others
   * from the nearest keyframe and the diffs after it.
   */
  state: EntityTable | undefined;
  /** What this message changed in the state: the created or changed rows (whole) and the removed ids. */
  stateDiff: EntityTable | undefined;
  error: MessageError | undefined;
  /** Type, tick, time and direction for the packet list. */
  summary: MessageSummary;
  /** Entities this message created / changed / removed (ids), from the state table. */
  changes: { created: string[]; updated: string[]; removed: string[] };
}

export interface Session {
  family: FamilyAdapter;
  options: OptionValues;
  /** Where the input came from (`sample: …`, `pasted hex`, a file name). */
  source: string;
  /** How the input was read (`1 message`, `hex lines`, `capture file`). */
  kind: string;
  messages: MessageView[];
  /** An input-level problem (bad hex, unreadable capture) shown instead of messages. */
  inputError: string | undefined;
}

/** Caps that keep the page responsive on big inputs. */
export const MAX_MESSAGES = 1_000_000;

/** A whole state table is kept every this many messages; the others keep their diff only. */
export const KEYFRAME_EVERY = 64;

/** Family option values: the defaults, then the given overrides. */
export function optionsFor(family: FamilyAdapter, given: OptionValues = {}): OptionValues {
  const out: OptionValues = {};
  for (const [k, o] of Object.entries(family.options)) if (o.default !== undefined) out[k] = o.default;
  for (const [k, v] of Object.entries(given)) if (v !== undefined) out[k] = v;
  return out;
}

function errorInfo(e: unknown): MessageError {
  if (e instanceof DecodeError) return { message: e.message, offset: e.offset, path: e.path, decodeError: true };
  const msg = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  return { message: `internal error (not a DecodeError — a decoder bug): ${msg}`, offset: 0, path: '', decodeError: false };
}

function jsonCopy<T>(v: T): T {
  return toJsonValue(v) as T;
}

function changesOf(state: EntityTable | undefined): MessageView['changes'] {
  const out: MessageView['changes'] = { created: [], updated: [], removed: state?.removed ?? [] };
  for (const r of state?.rows ?? []) {
    if (r.created) out.created.push(r.id);
    else if (r.changed.length > 0) out.updated.push(r.id);
  }
  return out;
}

function diffOf(state: EntityTable | undefined): EntityTable | undefined {
  if (state === undefined) return undefined;
  return { rows: state.rows.filter((r) => r.created || r.changed.length > 0), removed: state.removed };
}

function view(
  family: FamilyAdapter,
  index: number,
  bytes: Uint8Array | undefined,
  d: DecodedMessage | undefined,
  spans: Span[],
  state: EntityTable | undefined,
  error: MessageError | undefined,
): MessageView {
  let summary: MessageSummary = { type: error !== undefined ? 'decode error' : '(no record)' };
  if (d !== undefined) {
    try {
      summary = summarize(family, d);
    } catch {
      summary = { type: family.name };
    }
  }
  return {
    index,
    bytes,
    records: d ? (jsonCopy(d.records) as unknown[]) : [],
    layers: d?.layers ?? {},
    entities: d?.entities ?? [],
    spans,
    state: index % KEYFRAME_EVERY === 0 ? state : undefined,
    stateDiff: diffOf(state),
    error,
    summary,
    changes: changesOf(state),
  };
}

function stateOf(dec: { state?(): EntityTable }): EntityTable | undefined {
  if (dec.state === undefined) return undefined;
  try {
    return jsonCopy(dec.state());
  } catch {
    return undefined;
  }
}

/**
 * Decode a sequence of messages with one stateful decoder, in order. A message that
 * fails is kept with its error (and the spans recorded up to it); decoding goes on
 * with the next one, as a live client would.
 */
export function decodeMessages(family: FamilyAdapter, options: OptionValues, inputs: readonly Uint8Array[]): MessageView[] {
  return Array.from(iterMessages(family, options, inputs));
}

/** The same, one message at a time (the worker posts them in batches as they come). */
export function* iterMessages(family: FamilyAdapter, options: OptionValues, inputs: readonly Uint8Array[], prepared?: PreparedInput): Generator<MessageView> {
  let dec: StreamDecoder;
  try {
    dec = family.createDecoder(options, prepared);
  } catch (e) {
    const err = errorInfo(e);
    if (inputs.length > 0) yield view(family, 0, inputs[0], undefined, [], undefined, err);
    return;
  }
  const n = Math.min(inputs.length, MAX_MESSAGES);
  for (let i = 0; i < n; i++) {
    const bytes = inputs[i]!;
    const sink = new SpanSink();
    try {
      const d = dec.decode(bytes, sink);
      yield view(family, i, bytes, d, sink.spans, stateOf(dec), undefined);
    } catch (e) {
      const err = errorInfo(e);
      const layer = err.decodeError ? errorLayer(err.path, sink) : undefined;
      if (layer !== undefined) err.layer = layer;
      yield view(family, i, bytes, undefined, sink.spans, stateOf(dec), err);
    }
  }
}

/**
 * The state after message `i`: the nearest keyframe at or before it, then every diff up
 * to `i`. `cache` (the last answer) makes stepping forward one diff's work.
 */
export function stateAt(
  messages: readonly MessageView[],
  i: number,
  cache?: { index: number; table: Map<string, EntityRow>; removed: string[] },
): { index: number; table: Map<string, EntityRow>; removed: string[] } | undefined {
  const m = messages[i];
  if (m === undefined || m.stateDiff === undefined) return undefined;
  let k: number;
  let table: Map<string, EntityRow>;
  if (cache !== undefined && cache.index <= i && cache.index >= i - KEYFRAME_EVERY) {
    k = cache.index;
    table = new Map(cache.table);
  } else {
    k = i;
    while (k > 0 && messages[k]!.state === undefined) k--;
    const key = messages[k]!.state;
    if (key === undefined) return undefined;
    table = new Map(key.rows.map((r) => [r.id, r]));
    if (k === i) return { index: i, table, removed: key.removed };
  }
  for (let j = k + 1; j <= i; j++) {
    const d = messages[j]!.stateDiff;
    if (d === undefined) continue;
    for (const id of d.removed) table.delete(id);
    for (const r of d.rows) table.set(r.id, r);
  }
  return { index: i, table, removed: m.stateDiff.removed };
}

/** The state table after message `i`, with the rows this message changed marked as it marked them. */
export function stateTableAt(
  messages: readonly MessageView[],
  i: number,
  cache?: Parameters<typeof stateAt>[2],
): { table: EntityTable; cache: NonNullable<ReturnType<typeof stateAt>> } | undefined {
  const st = stateAt(messages, i, cache);
  if (st === undefined) return undefined;
  const mine = new Set((messages[i]!.stateDiff?.rows ?? []).map((r) => r.id));
  const rows: EntityRow[] = [];
  for (const r of st.table.values()) rows.push(mine.has(r.id) ? r : r.changed.length === 0 && !r.created ? r : { ...r, changed: [], created: false });
  return { table: { rows, removed: st.removed }, cache: st };
}

/**
 * Which buffer a DecodeError's offset refers to: the layer the decoder was in when it
 * threw, else the layer of the deepest recorded span whose path contains the error's
 * path (a decoder that resets its layer on the way out still recorded its fields there).
 */
export function errorLayer(path: string, sink: SpanSink): string | undefined {
  if (sink.layer !== undefined) return sink.layer;
  let best: Span | undefined;
  for (const s of sink.spans) {
    if (s.path === '' || (best !== undefined && s.path.length <= best.path.length)) continue;
    const c = path.charCodeAt(s.path.length);
    if (path.startsWith(s.path) && (path.length === s.path.length || c === 46 /* . */ || c === 91) /* [ */) best = s;
  }
  return best?.layer;
}

/** One hex message per line; blank lines and `#` comments skipped. Throws a line-numbered Error on bad hex. */
export function parseHexLines(text: string): Uint8Array[] {
  try {
    return parseLines(text);
  } catch (e) {
    if (e instanceof DecodeError)
      throw new Error(`${e.path}: bad hex at character ${e.offset + 1}: expected ${e.expected}${e.found ? `, found ${e.found}` : ''}`);
    throw e;
  }
}

const HEX_LINE = /^(0x)?[0-9a-fA-F][0-9a-fA-F\s:-]*$/;

/** True when a file is text made of hex lines (and `#` comments). */
export function looksLikeHexLines(bytes: Uint8Array): boolean {
  if (bytes.length === 0) return false;
  for (let i = 0; i < Math.min(bytes.length, 4096); i++) {
    const b = bytes[i]!;
    if (b === 0 || b > 0x7e || (b < 0x20 && b !== 9 && b !== 10 && b !== 13)) return false;
  }
  const text = new TextDecoder().decode(bytes);
  let hexLines = 0;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    if (!HEX_LINE.test(line)) return false;
    hexLines++;
  }
  return hexLines > 0;
}

function session(family: FamilyAdapter, options: OptionValues, source: string, kind: string, messages: MessageView[], inputError?: string): Session {
  return { family, options, source, kind, messages, inputError };
}

/** Pasted text: hex, one message per line (several lines make a stream). */
export function decodePastedHex(family: FamilyAdapter, options: OptionValues, text: string): Session {
  let inputs: Uint8Array[];
  try {
    inputs = parseHexLines(text);
  } catch (e) {
    return session(family, options, 'pasted hex', 'hex', [], (e as Error).message);
  }
  if (inputs.length === 0) return session(family, options, 'pasted hex', 'hex', [], 'no hex to decode');
  return session(family, options, 'pasted hex', inputs.length === 1 ? '1 message' : `${inputs.length} hex lines`, decodeMessages(family, options, inputs));
}

/** How an input will be read, and its messages one at a time (for the worker's progressive load). */
export interface InputPlan {
  kind: string;
  inputError?: string;
  /** Number of messages when known in advance (hex lines, one binary message). */
  total?: number;
  messages: Iterable<MessageView>;
}

/** Messages from a family's own file decoder (a pcap, a demo, a HAR), lazily; an error ends the list. */
function* iterDecodedFile(family: FamilyAdapter, iter: Iterable<DecodedMessage>): Generator<MessageView> {
  let n = 0;
  try {
    for (const d of iter) {
      yield view(family, n++, d.bytes, d, d.spans ?? [], d.state === undefined ? undefined : jsonCopy(d.state), undefined);
      if (n >= MAX_MESSAGES) return;
    }
  } catch (e) {
    yield view(family, n, undefined, undefined, [], undefined, errorInfo(e));
  }
}

/**
 * A file's bytes: a text file of hex lines (a stream), else the family's own file
 * decoder (a pcap, a demo), else one binary message.
 */
export function planFile(
  family: FamilyAdapter,
  options: OptionValues,
  bytes: Uint8Array,
  format?: Sample['format'],
  prepared?: PreparedInput,
  lines?: Uint8Array[],
): InputPlan {
  if (format === 'hex-lines' || (format === undefined && looksLikeHexLines(bytes))) {
    let inputs: Uint8Array[];
    try {
      inputs = lines ?? parseHexLines(new TextDecoder().decode(bytes));
    } catch (e) {
      return { kind: 'hex lines', inputError: (e as Error).message, messages: [] };
    }
    const dropped = inputs.length > MAX_MESSAGES ? ` (the first ${MAX_MESSAGES} of ${inputs.length}: the rest are not decoded)` : '';
    return {
      kind: `${inputs.length} hex line${inputs.length === 1 ? '' : 's'}${dropped}`,
      total: Math.min(inputs.length, MAX_MESSAGES),
      messages: iterMessages(family, options, inputs, prepared),
    };
  }
  if (format !== 'binary' && family.decodeFile !== undefined) {
    let iter: Iterable<DecodedMessage> | undefined;
    try {
      iter = family.decodeFile(bytes, options, undefined, prepared);
    } catch (e) {
      return { kind: 'capture file', total: 1, messages: [view(family, 0, undefined, undefined, [], undefined, errorInfo(e))] };
    }
    if (iter !== undefined) return { kind: 'capture file', messages: iterDecodedFile(family, iter) };
  }
  if (format === 'pcap') return { kind: 'capture file', inputError: `${family.name} cannot read this capture file`, messages: [] };
  return { kind: '1 message', total: 1, messages: iterMessages(family, options, [bytes], prepared) };
}

/**
 * `planFile` after the family's asynchronous `prepare` (the worker's way: WoW inflates its
 * compressed frames' zlib bodies through the platform's DecompressionStream first). What the
 * plan yields is the same as `planFile`'s; a failed `prepare` is only a lost head start.
 */
export async function planFileAsync(family: FamilyAdapter, options: OptionValues, bytes: Uint8Array, format?: Sample['format']): Promise<InputPlan> {
  if (family.prepare === undefined) return planFile(family, options, bytes, format);
  let lines: Uint8Array[] | undefined;
  if (format === 'hex-lines' || (format === undefined && looksLikeHexLines(bytes))) {
    try {
      lines = parseHexLines(new TextDecoder().decode(bytes));
    } catch {
      return planFile(family, options, bytes, format);
    }
  }
  let prepared: PreparedInput | undefined;
  try {
    prepared = await family.prepare(lines !== undefined ? { messages: lines.slice(0, MAX_MESSAGES) } : { file: bytes }, options);
  } catch {
    prepared = undefined;
  }
  return planFile(family, options, bytes, format, prepared, lines);
}

/** A whole file decoded at once (tests, small inputs). */
export function decodeFileBytes(family: FamilyAdapter, options: OptionValues, name: string, bytes: Uint8Array, format?: Sample['format']): Session {
  const plan = planFile(family, options, bytes, format);
  return session(family, options, name, plan.kind, Array.from(plan.messages), plan.inputError);
}

/** Inner buffers of a message by name, the outer input first (as `''`). */
export function buffersOf(m: MessageView): Array<[string, Uint8Array]> {
  const out: Array<[string, Uint8Array]> = [];
  if (m.bytes !== undefined) out.push(['', m.bytes]);
  for (const [k, v] of Object.entries(m.layers)) if (v instanceof Uint8Array) out.push([k, v]);
  return out;
}

/** Key of a tree node / span: its record index and its path inside that record's JSON. */
export function nodeKey(record: number, path: string): string {
  return `${record}|${path}`;
}

/** Index of spans by (record, path), and the byte range a tree node covers. */
export class SpanIndex {
  private readonly byKey = new Map<string, Span>();
  /** For every node that has spans below it: the range covering them (in the first one's buffer). */
  private readonly unions = new Map<string, Span>();
  constructor(readonly spans: readonly Span[]) {
    for (const s of spans) {
      const r = s.record ?? 0;
      const k = nodeKey(r, s.path);
      const prev = this.byKey.get(k);
      // keep the widest span of a path (a struct recorded after its fields covers them)
      if (prev === undefined || s.end - s.start > prev.end - prev.start) this.byKey.set(k, s);
      for (let p = parentPath(s.path), guard = 0; guard < 64; p = parentPath(p), guard++) {
        const pk = nodeKey(r, p);
        const u = this.unions.get(pk);
        if (u === undefined)
          this.unions.set(pk, { start: s.start, end: s.end, path: p, kind: 'group', record: r, ...(s.layer !== undefined ? { layer: s.layer } : {}) });
        else if (u.layer === s.layer) {
          if (s.start < u.start) u.start = s.start;
          if (s.end > u.end) u.end = s.end;
        }
        if (p === '') break;
      }
    }
  }

  /** The span of a node, or the range covering all spans below it (same buffer), or undefined. */
  rangeOf(record: number, path: string): Span | undefined {
    const k = nodeKey(record, path);
    return this.byKey.get(k) ?? this.unions.get(k);
  }

  /** True when a span has exactly this node's key. */
  has(record: number, path: string): boolean {
    return this.byKey.has(nodeKey(record, path));
  }

  /** The innermost span covering byte `offset` of a buffer. */
  innermost(offset: number, layer: string | undefined): Span | undefined {
    let best: Span | undefined;
    for (const s of this.spans) {
      if (s.start <= offset && offset < s.end && s.layer === layer) {
        const len = s.end - s.start;
        const bestLen = best === undefined ? Infinity : best.end - best.start;
        if (len < bestLen || (len === bestLen && best !== undefined && s.path.length > best.path.length)) best = s;
      }
    }
    return best;
  }
}

/** Parent path: `a.b[3].c` → `a.b[3]` → `a.b` → `a` → ``. */
export function parentPath(path: string): string {
  const dot = path.lastIndexOf('.');
  const br = path.lastIndexOf('[');
  const cut = Math.max(dot, br);
  return cut <= 0 ? '' : path.slice(0, cut);
}

/**
 * Spans: where each decoded field lives in the input bytes, for the inspector.
 *
 * Decoders accept an optional `SpanSink`. When none is given they skip all span
 * work behind a single `if (spans !== undefined)` check: no allocation, no closure.
 */
export interface Span {
  /** First byte, inclusive. */
  start: number;
  /** Last byte, exclusive. */
  end: number;
  /** Full field path, e.g. `blocks[3].movement.flags`. */
  path: string;
  /** Kind of field: `u32be`, `varint`, `guid`, `lz4`, `struct`, `array` ... */
  kind: string;
  /**
   * Which buffer the offsets refer to when a message nests another one
   * (e.g. `"lz4"` for a decompressed body); absent for the outermost input.
   */
  layer?: string;
  /**
   * Index of the record (in the decoded message's `records`) whose JSON the path
   * is written against; absent means record 0. The path is exactly the path of
   * the value inside that JSON record (`body.blocks[0].movement.x`).
   */
  record?: number;
}

/** Receives spans, with a path stack that decoders push to and pop from. */
export class SpanSink {
  readonly spans: Span[] = [];
  private readonly stack: string[] = [];
  private prefix = '';
  /** Current buffer layer; decoders set it around nested buffers. */
  layer: string | undefined = undefined;
  /** Current record index (see `Span.record`); decoders that emit several records per message set it. */
  record: number | undefined = undefined;

  /** Enter a struct field (`movement`) or an array element (`[3]`). */
  push(segment: string): void {
    this.stack.push(this.prefix);
    this.prefix = this.prefix === '' ? segment : segment.charCodeAt(0) === 91 ? this.prefix + segment : `${this.prefix}.${segment}`;
  }

  pop(): void {
    this.prefix = this.stack.pop() ?? '';
  }

  /** Current path. */
  get path(): string {
    return this.prefix;
  }

  /** Full path of a child field. */
  pathOf(name: string): string {
    if (name === '') return this.prefix;
    if (this.prefix === '') return name;
    return name.charCodeAt(0) === 91 ? this.prefix + name : `${this.prefix}.${name}`;
  }

  /** Record a field (`name` relative to the current path). */
  add(name: string, start: number, end: number, kind: string): void {
    const s: Span = { start, end, path: this.pathOf(name), kind };
    if (this.layer !== undefined) s.layer = this.layer;
    if (this.record !== undefined) s.record = this.record;
    this.spans.push(s);
  }

  /** Spans that cover byte `offset` (innermost last), for hover lookups. */
  at(offset: number, layer?: string): Span[] {
    return this.spans.filter((s) => s.start <= offset && offset < s.end && s.layer === layer);
  }
}

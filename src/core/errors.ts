/**
 * Errors raised by tickwire decoders and encoders.
 *
 * Every decoder is total: for any input it returns a value or throws a
 * `DecodeError` (of which `LimitError` is a kind). Nothing else escapes.
 */

/** Bad input bytes: where it went wrong, in which field, what was expected and found. */
export class DecodeError extends Error {
  /** Byte offset in the buffer being decoded (for nested buffers, e.g. an LZ4 body, an offset in that buffer). */
  offset: number;
  /** Field path such as `blocks[3].movement.spline.points[2]`; empty when unknown. */
  path: string;
  /** What the decoder expected to see. */
  readonly expected: string;
  /** What it found instead, when known. */
  readonly found: string | undefined;

  constructor(offset: number, path: string, expected: string, found?: string) {
    super('');
    this.name = 'DecodeError';
    this.offset = offset;
    this.path = path;
    this.expected = expected;
    this.found = found;
    this.message = this.describe();
  }

  /** One line: `at byte 12 in blocks[3].guid: expected 8 bytes, found 2 left`. */
  describe(): string {
    const where = this.path === '' ? `at byte ${this.offset}` : `at byte ${this.offset} in ${this.path}`;
    return `${where}: expected ${this.expected}${this.found === undefined ? '' : `, found ${this.found}`}`;
  }

  /**
   * Prepend a path segment (`blocks[3]`, `movement`) and refresh the message.
   * Decoders call this from a catch block on the way out so that the happy path pays nothing.
   */
  under(segment: string): this {
    if (segment !== '') {
      if (this.path === '') this.path = segment;
      else if (this.path.charCodeAt(0) === 91 /* [ */) this.path = segment + this.path;
      else this.path = `${segment}.${this.path}`;
    }
    this.message = this.describe();
    return this;
  }

  /** Shift the offset, for errors raised while decoding a sub-buffer that starts at `base`. */
  shifted(base: number): this {
    this.offset += base;
    this.message = this.describe();
    return this;
  }
}

/** A named limit was exceeded (a count, a decompressed size, a string length). */
export class LimitError extends DecodeError {
  /** Name of the limit in `Limits`. */
  readonly limit: string;
  readonly max: number;
  readonly value: number;

  constructor(offset: number, path: string, limit: string, value: number, max: number) {
    super(offset, path, `at most ${max} (limit ${limit})`, String(value));
    this.name = 'LimitError';
    this.limit = limit;
    this.max = max;
    this.value = value;
  }
}

/** A value handed to an encoder cannot be written (out of range, wrong shape). */
export class EncodeError extends Error {
  readonly path: string;
  /** The message without the path in front of it. */
  readonly reason: string;
  /** `cause`: the error behind it, when it is another's (a file that could not be read: the system's error). */
  constructor(path: string, message: string, options?: { cause?: unknown }) {
    super(path === '' ? message : `${path}: ${message}`, options);
    this.name = 'EncodeError';
    this.path = path;
    this.reason = message;
  }
}

/** An EncodeError with `seg` put in front of its path (anything else unchanged): encoders' `rethrowAt`. */
export function atPath(e: unknown, seg: string): unknown {
  if (e instanceof EncodeError) {
    const path = e.path === '' ? seg : e.path.charCodeAt(0) === 91 ? `${seg}${e.path}` : `${seg}.${e.path}`;
    return new EncodeError(path, e.reason, e.cause === undefined ? undefined : { cause: e.cause });
  }
  return e;
}

/**
 * An encoder's refusal of a value a caller made (not decoded from bytes) as the DecodeError a mirror's `apply` gives
 * for bad input: the same path, byte 0 (there are no bytes), and the reason as what was expected ("expected X" as X,
 * anything else as "what the encoder takes (…)"). Anything that is not an EncodeError is returned as it is.
 */
export function refusalAsDecodeError(e: unknown): unknown {
  if (!(e instanceof EncodeError)) return e;
  const r = e.reason;
  return new DecodeError(0, e.path, r.startsWith('expected ') ? r.slice(9) : `what the encoder takes (${r})`);
}

/**
 * Rethrow helper for decoders: adds `segment` to a DecodeError's path.
 * Anything that is not a DecodeError is a bug in a decoder; it is wrapped so that the
 * totality promise still holds for the caller, but with the original as `cause`.
 *
 * ```ts
 * try { blocks[i] = readBlock(r); } catch (e) { throw rethrowAt(e, `blocks[${i}]`, r.pos); }
 * ```
 */
export function rethrowAt(e: unknown, segment: string, offset = 0): DecodeError {
  if (e instanceof DecodeError) return e.under(segment);
  const err = new DecodeError(offset, segment, 'well-formed input', `internal error: ${e instanceof Error ? e.message : String(e)}`);
  (err as { cause?: unknown }).cause = e;
  return err;
}

/** Run a decoder and make sure only `DecodeError` can escape (for public entry points). */
export function total<T>(fn: () => T, path = ''): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof DecodeError) throw e;
    throw rethrowAt(e, path);
  }
}

/**
 * A strict zlib (RFC 1950) / deflate (RFC 1951) decoder in plain TypeScript,
 * the same on Node and in the browser.
 *
 * It accepts exactly the streams zlib's own `inflate` accepts (same checks:
 * header, stored-block LEN/NLEN, code-length, literal/length and distance code
 * sets, distances too far back, Adler-32), so that a message gives the same
 * result — value or error — wherever it is decoded. An error costs no more than
 * a success: nothing outside the call is allocated or kept.
 *
 * Why by hand: node:zlib is not in the browser and keeps each failed stream's
 * native state until the event loop turns; fflate accepts streams zlib rejects
 * (a stored block with a wrong NLEN, over-subscribed distance codes) and does
 * not check the Adler-32.
 */

/**
 * Why a stream was refused; `offset` is the input byte where it was found.
 * Not an `Error`: it is caught by `inflateZlib` (which throws a `DecodeError`),
 * and capturing a stack trace here would double the cost of every bad frame.
 */
export class InflateError {
  readonly name = 'InflateError';
  constructor(
    readonly reason: string,
    readonly offset: number,
    /** `'data'` for a malformed stream, `'eof'` when the input ends early, `'cap'` when the output would pass the cap. */
    readonly kind: 'data' | 'eof' | 'cap',
  ) {}

  get message(): string {
    return this.reason;
  }
}

export interface InflateResult {
  /** The inflated bytes. */
  out: Uint8Array;
  /** Input bytes used, header and Adler-32 included (bytes after it are not read). */
  used: number;
}

// --- static tables (immutable) ---------------------------------------------

const LEN_BASE = new Uint16Array([3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]);
const LEN_EXTRA = new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]);
const DIST_BASE = new Uint16Array([
  1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
]);
const DIST_EXTRA = new Uint8Array([0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]);
/** Order of the code-length code lengths in a dynamic block header. */
const CLEN_ORDER = new Uint8Array([16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]);

/**
 * A two-level decoding table. The root is indexed by the next `bits` input
 * bits (LSB first); an entry is `symbol << 8 | code length`, or, for codes
 * longer than the root (`LINK` set), `offset << 8 | LINK`: the entry is then
 * at `t[offset + (the next sub bits after the root)]`. 0 marks a bit pattern
 * no code has. `max` is the longest code. Roots of at most ROOT_BITS bits keep
 * the table small to build: a 15-bit code would otherwise fill 32,768 slots.
 */
interface Table {
  t: Uint32Array;
  bits: number;
  sub: number;
  max: number;
}

const ROOT_BITS = 10;
const LINK = 0x40;

enum Kind {
  CODES,
  LENS,
  DISTS,
}

/**
 * Build a table from code lengths `lens[off … off + n)` with zlib's rules:
 * an over-subscribed set is refused; an incomplete set only when it is a
 * single one-bit code (literal/length and distance sets) — never for the
 * code-length code; an empty set is allowed for distances. Returns undefined
 * for a refused set.
 */
function buildTable(lens: Uint8Array, off: number, n: number, kind: Kind): Table | undefined {
  const count = new Uint16Array(16);
  for (let i = 0; i < n; i++) count[lens[off + i]!]!++;
  let max = 15;
  while (max > 0 && count[max] === 0) max--;
  if (max === 0) return kind === Kind.DISTS ? { t: new Uint32Array(2), bits: 1, sub: 0, max: 1 } : undefined;
  let left = 1;
  for (let len = 1; len <= 15; len++) {
    left = (left << 1) - count[len]!;
    if (left < 0) return undefined; // over-subscribed
  }
  if (left > 0 && (kind === Kind.CODES || max !== 1)) return undefined; // incomplete
  const next = new Uint16Array(16);
  for (let len = 1; len < 15; len++) next[len + 1] = (next[len]! + count[len]!) << 1;
  const bits = Math.min(max, ROOT_BITS);
  const sub = max - bits;
  const size = 1 << bits;
  const subSize = 1 << sub;
  // one sub-table per root slot that starts a longer code
  let links = 0;
  let starts: Int32Array | undefined;
  if (sub > 0) {
    starts = new Int32Array(size).fill(-1);
    const nx = next.slice();
    for (let sym = 0; sym < n; sym++) {
      const len = lens[off + sym]!;
      if (len <= bits) continue;
      const rev = reverse(nx[len]!++, len) & (size - 1);
      if (starts[rev]! < 0) starts[rev] = size + subSize * links++;
    }
  }
  const t = new Uint32Array(size + subSize * links);
  if (starts !== undefined) for (let i = 0; i < size; i++) if (starts[i]! >= 0) t[i] = (starts[i]! << 8) | LINK;
  for (let sym = 0; sym < n; sym++) {
    const len = lens[off + sym]!;
    if (len === 0) continue;
    const rev = reverse(next[len]!++, len);
    const entry = (sym << 8) | len;
    if (len <= bits) for (let i = rev; i < size; i += 1 << len) t[i] = entry;
    else {
      const at = starts![rev & (size - 1)]!;
      for (let i = rev >>> bits; i < subSize; i += 1 << (len - bits)) t[at + i] = entry;
    }
  }
  return { t, bits, sub, max };
}

/** The low `len` bits of `code`, reversed. */
function reverse(code: number, len: number): number {
  let x = code;
  x = ((x & 0x5555) << 1) | ((x >>> 1) & 0x5555);
  x = ((x & 0x3333) << 2) | ((x >>> 2) & 0x3333);
  x = ((x & 0x0f0f) << 4) | ((x >>> 4) & 0x0f0f);
  x = ((x & 0x00ff) << 8) | ((x >>> 8) & 0x00ff);
  return x >>> (16 - len);
}

function fixedTables(): { lit: Table; dist: Table } {
  const l = new Uint8Array(288);
  l.fill(8, 0, 144);
  l.fill(9, 144, 256);
  l.fill(7, 256, 280);
  l.fill(8, 280, 288);
  const d = new Uint8Array(32).fill(5);
  return { lit: buildTable(l, 0, 288, Kind.LENS)!, dist: buildTable(d, 0, 32, Kind.DISTS)! };
}
const FIXED = fixedTables();

// --- the decoder --------------------------------------------------------------

/** Bit cursor and output of one inflate call. */
class Inflate {
  /** Next input byte. */
  p: number;
  /** Bit buffer (LSB first) and its bit count. */
  bb = 0;
  bc = 0;
  out: Uint8Array;
  /** Bytes written to `out`. */
  o = 0;

  constructor(
    readonly src: Uint8Array,
    start: number,
    /** Most output bytes allowed. */
    readonly cap: number,
    /** True when `cap` is also the size to expect: `out` is allocated at it once. */
    exact: boolean,
  ) {
    this.p = start;
    this.out = new Uint8Array(exact ? cap : Math.min(cap, Math.max(1024, src.length * 4)));
  }

  fail(reason: string, kind: 'data' | 'eof' | 'cap' = 'data'): never {
    throw new InflateError(reason, Math.min(this.p - (this.bc >> 3), this.src.length), kind);
  }

  /** Take `n` bits (n ≤ 24). */
  bits(n: number): number {
    let bb = this.bb;
    let bc = this.bc;
    const src = this.src;
    while (bc < n) {
      if (this.p >= src.length) this.fail('unexpected end of file', 'eof');
      bb |= src[this.p++]! << bc;
      bc += 8;
    }
    this.bb = bb >>> n;
    this.bc = bc - n;
    return bb & ((1 << n) - 1);
  }

  /** One symbol of `tab`, reading only the bits its code needs. */
  symbol(tab: Table): number {
    const src = this.src;
    while (this.bc < tab.max && this.p < src.length) {
      this.bb |= src[this.p++]! << this.bc;
      this.bc += 8;
    }
    let e = tab.t[this.bb & ((1 << tab.bits) - 1)]!;
    if ((e & LINK) !== 0) e = tab.t[(e >>> 8) + ((this.bb >>> tab.bits) & ((1 << tab.sub) - 1))]!;
    const len = e & 15;
    if (len === 0 || len > this.bc) {
      if (this.bc < tab.max) this.fail('unexpected end of file', 'eof');
      return -1;
    }
    this.bb >>>= len;
    this.bc -= len;
    return e >>> 8;
  }

  /** Room for `n` more output bytes, growing `out` up to the cap. */
  room(n: number): Uint8Array {
    const need = this.o + n;
    if (need <= this.out.length) return this.out;
    if (need > this.cap) this.fail('output over the cap', 'cap');
    const grown = new Uint8Array(Math.min(this.cap, Math.max(need, this.out.length * 2)));
    grown.set(this.out.subarray(0, this.o));
    this.out = grown;
    return grown;
  }

  stored(): void {
    // to the byte boundary: whole bytes still in the bit buffer go back to the input
    this.p -= this.bc >> 3;
    this.bb = 0;
    this.bc = 0;
    const src = this.src;
    const p = this.p;
    if (p + 4 > src.length) {
      this.p = src.length;
      this.fail('unexpected end of file', 'eof');
    }
    const len = src[p]! | (src[p + 1]! << 8);
    const nlen = src[p + 2]! | (src[p + 3]! << 8);
    if (len !== (~nlen & 0xffff)) this.fail('invalid stored block lengths');
    this.p = p + 4;
    const avail = Math.min(len, src.length - this.p);
    const out = this.room(avail);
    out.set(src.subarray(this.p, this.p + avail), this.o);
    this.o += avail;
    this.p += avail;
    if (avail < len) this.fail('unexpected end of file', 'eof');
  }

  dynamic(): { lit: Table; dist: Table } {
    const nlen = this.bits(5) + 257;
    const ndist = this.bits(5) + 1;
    const ncode = this.bits(4) + 4;
    if (nlen > 286 || ndist > 30) this.fail('too many length or distance symbols');
    const clens = new Uint8Array(19);
    for (let i = 0; i < ncode; i++) clens[CLEN_ORDER[i]!] = this.bits(3);
    const ctab = buildTable(clens, 0, 19, Kind.CODES);
    if (ctab === undefined) this.fail('invalid code lengths set');
    const lens = new Uint8Array(nlen + ndist);
    for (let have = 0; have < nlen + ndist; ) {
      const sym = this.symbol(ctab);
      if (sym < 0) this.fail('invalid code lengths set');
      if (sym < 16) {
        lens[have++] = sym;
        continue;
      }
      let value = 0;
      let copy: number;
      if (sym === 16) {
        if (have === 0) this.fail('invalid bit length repeat');
        value = lens[have - 1]!;
        copy = 3 + this.bits(2);
      } else if (sym === 17) copy = 3 + this.bits(3);
      else copy = 11 + this.bits(7);
      if (have + copy > nlen + ndist) this.fail('invalid bit length repeat');
      lens.fill(value, have, have + copy);
      have += copy;
    }
    if (lens[256] === 0) this.fail('invalid code -- missing end-of-block');
    const lit = buildTable(lens, 0, nlen, Kind.LENS);
    if (lit === undefined) this.fail('invalid literal/lengths set');
    const dist = buildTable(lens, nlen, ndist, Kind.DISTS);
    if (dist === undefined) this.fail('invalid distances set');
    return { lit, dist };
  }

  /** The symbols of one Huffman-coded block, up to its end-of-block code. */
  codes(lit: Table, dist: Table): void {
    for (;;) {
      if (this.fast(lit, dist)) return;
      // near the end of the input or of the output: one symbol at a time, every bit checked
      const sym = this.symbol(lit);
      if (sym < 0) this.fail('invalid literal/length code');
      if (sym < 256) {
        const out = this.room(1);
        out[this.o++] = sym;
      } else if (sym === 256) return;
      else this.match(sym, dist);
    }
  }

  /**
   * zlib's "inflate_fast": symbols while at least 8 input bytes and 258
   * output bytes are in hand, with the cursor and bit buffer in locals.
   * Returns true at the end-of-block code, false when the slow path must go on.
   */
  fast(lit: Table, dist: Table): boolean {
    const src = this.src;
    const stop = src.length - 8;
    const out = this.out;
    const ostop = out.length - 258;
    const lt = lit.t;
    const lbits = lit.bits;
    const lmask = (1 << lbits) - 1;
    const lsub = (1 << lit.sub) - 1;
    const dt = dist.t;
    const dbits = dist.bits;
    const dmask = (1 << dbits) - 1;
    const dsub = (1 << dist.sub) - 1;
    let o = this.o;
    let p = this.p;
    let bb = this.bb;
    let bc = this.bc;
    let done = false;
    while (p < stop && o < ostop) {
      if (bc < 16) {
        bb |= (src[p]! << bc) | (src[p + 1]! << (bc + 8));
        p += 2;
        bc += 16;
      }
      let e = lt[bb & lmask]!;
      if ((e & LINK) !== 0) e = lt[(e >>> 8) + ((bb >>> lbits) & lsub)]!;
      const len = e & 15;
      if (len === 0 || e >>> 8 > 285) {
        this.p = p - (bc >> 3);
        this.bc = 0;
        this.fail('invalid literal/length code');
      }
      const sym = e >>> 8;
      if (sym < 256) {
        bb >>>= len;
        bc -= len;
        out[o++] = sym;
        continue;
      }
      if (sym === 256) {
        bb >>>= len;
        bc -= len;
        done = true;
        break;
      }
      bb >>>= len;
      bc -= len;
      // length extra bits (≤ 5), then the distance code (≤ 15 bits)
      if (bc < 16) {
        bb |= (src[p]! << bc) | (src[p + 1]! << (bc + 8));
        p += 2;
        bc += 16;
      }
      const li = sym - 257;
      const lx = LEN_EXTRA[li]!;
      const length = LEN_BASE[li]! + (bb & ((1 << lx) - 1));
      bb >>>= lx;
      bc -= lx;
      if (bc < 16) {
        bb |= (src[p]! << bc) | (src[p + 1]! << (bc + 8));
        p += 2;
        bc += 16;
      }
      let de = dt[bb & dmask]!;
      if ((de & LINK) !== 0) de = dt[(de >>> 8) + ((bb >>> dbits) & dsub)]!;
      const dl = de & 15;
      const ds = de >>> 8;
      if (dl === 0 || ds > 29) {
        this.p = p - (bc >> 3);
        this.bc = 0;
        this.fail('invalid distance code');
      }
      bb >>>= dl;
      bc -= dl;
      if (bc < 16) {
        bb |= (src[p]! << bc) | (src[p + 1]! << (bc + 8));
        p += 2;
        bc += 16;
      }
      const dx = DIST_EXTRA[ds]!;
      const d = DIST_BASE[ds]! + (bb & ((1 << dx) - 1));
      bb >>>= dx;
      bc -= dx;
      if (d > o) {
        this.p = p - (bc >> 3);
        this.bc = 0;
        this.fail('invalid distance too far back');
      }
      let from = o - d;
      const end = o + length;
      if (d >= length && length > 32) {
        out.copyWithin(o, from, from + length);
        o = end;
      } else while (o < end) out[o++] = out[from++]!;
    }
    this.o = o;
    this.p = p;
    this.bb = bb;
    this.bc = bc;
    return done;
  }

  /** A length symbol (257 … 285) and the distance that follows: copy the match; returns the new output length. */
  match(sym: number, dist: Table): number {
    if (sym > 285) this.fail('invalid literal/length code');
    const li = sym - 257;
    const length = LEN_BASE[li]! + this.bits(LEN_EXTRA[li]!);
    const ds = this.symbol(dist);
    if (ds < 0 || ds > 29) this.fail('invalid distance code');
    const d = DIST_BASE[ds]! + this.bits(DIST_EXTRA[ds]!);
    const o = this.o;
    if (d > o) this.fail('invalid distance too far back');
    const out = this.room(length);
    let from = o - d;
    const end = o + length;
    if (d >= length && length > 32) out.copyWithin(o, from, from + length);
    else for (let i = o; i < end; ) out[i++] = out[from++]!;
    this.o = end;
    return end;
  }
}

/** Adler-32 of `b` (RFC 1950). */
export function adler32(b: Uint8Array, start = 0, end = b.length): number {
  let a = 1;
  let s = 0;
  for (let i = start; i < end; ) {
    // chunks short enough that the sums stay exact small integers before the modulo
    const stop = Math.min(end, i + 1024);
    // eight bytes a step: s gains 8 a plus the bytes weighted 8 … 1 (no chain of eight dependent adds)
    for (; i + 8 <= stop; i += 8) {
      const b0 = b[i]!;
      const b1 = b[i + 1]!;
      const b2 = b[i + 2]!;
      const b3 = b[i + 3]!;
      const b4 = b[i + 4]!;
      const b5 = b[i + 5]!;
      const b6 = b[i + 6]!;
      const b7 = b[i + 7]!;
      s += 8 * a + 8 * b0 + 7 * b1 + 6 * b2 + 5 * b3 + 4 * b4 + 3 * b5 + 2 * b6 + b7;
      a += b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7;
    }
    for (; i < stop; i++) {
      a += b[i]!;
      s += a;
    }
    a %= 65521;
    s %= 65521;
  }
  return ((s << 16) | a) >>> 0;
}

/**
 * Inflate the zlib stream at the start of `src` into at most `cap` bytes
 * (exactly `cap` are allocated up front when `exact`). Throws `InflateError`.
 */
export function inflateStrict(src: Uint8Array, cap: number, exact = false): InflateResult {
  if (src.length < 2) throw new InflateError('unexpected end of file', src.length, 'eof');
  const cmf = src[0]!;
  const flg = src[1]!;
  if (((cmf << 8) | flg) % 31 !== 0) throw new InflateError('incorrect header check', 0, 'data');
  if ((cmf & 15) !== 8) throw new InflateError('unknown compression method', 0, 'data');
  if (cmf >> 4 > 7) throw new InflateError('invalid window size', 0, 'data');
  if ((flg & 0x20) !== 0) throw new InflateError('missing dictionary', 1, 'data');
  const s = new Inflate(src, 2, cap, exact);
  for (;;) {
    const final = s.bits(1);
    const type = s.bits(2);
    if (type === 0) s.stored();
    else if (type === 1) s.codes(FIXED.lit, FIXED.dist);
    else if (type === 2) {
      const t = s.dynamic();
      s.codes(t.lit, t.dist);
    } else s.fail('invalid block type');
    if (final === 1) break;
  }
  // to the byte boundary: whole bytes still in the bit buffer go back to the input
  const at = s.p - (s.bc >> 3);
  if (at + 4 > src.length) throw new InflateError('unexpected end of file', src.length, 'eof');
  const check = ((src[at]! << 24) | (src[at + 1]! << 16) | (src[at + 2]! << 8) | src[at + 3]!) >>> 0;
  const o = s.o;
  if (check !== adler32(s.out, 0, o)) throw new InflateError('incorrect data check', at, 'data');
  const out = o === s.out.length ? s.out : s.out.slice(0, o);
  return { out, used: at + 4 };
}

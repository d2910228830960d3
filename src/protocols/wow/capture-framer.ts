/** Framing one direction of a world connection, with resynchronisation after gaps (capture.ts). */
import { CLIENT_HEADER_LENGTH, SERVER_HEADER_LENGTH, SMSG_AUTH_RESPONSE } from './cipher.js';
import { isClientOpcode, isServerOpcode, NUM_OPCODES, opcodeName } from './tables/opcodes.js';
import {
  KEY_LEN,
  SMSG_UPDATE_OBJECT,
  SMSG_COMPRESSED_UPDATE_OBJECT,
  CLIENT_MAX_SIZE,
  type WowDirection,
  type KeyEvidence,
  type WowFrame,
  type WowSkip,
} from './capture-types.js';
import { type Run, type DirStream, upperBound } from './capture-stream.js';
import type { KeyBook } from './capture-keys.js';
import { looksLikeUpdate } from './capture-sniff.js';

export interface Sync {
  pos: number;
  /** Enciphered headers so far (only its value modulo the cycle matters after a resync). */
  hdr: number;
  last: number;
}

/** Most frame starts tried by one resynchronisation. */
const MAX_RESYNC_STARTS = 32;
/** Most segment ends tried as the end of a frame whose size key bytes are unknown. */
const MAX_END_CANDIDATES = 8;
/** Nodes one look-ahead over possible frame ends may visit. */
const PROBE_BUDGET = 400;
/** Frames a resynchronisation candidate must chain (fewer when the run ends first). */
const RESYNC_CHAIN = 4;

export class Framer {
  readonly hl: number;
  /** Headers per full turn of the key index. */
  readonly cycle: number;
  readonly minSize: number;
  readonly maxSize: number;

  constructor(
    readonly ds: DirStream,
    readonly dir: WowDirection,
    readonly key: KeyBook,
    readonly learn: boolean,
    readonly emit: ((e: WowFrame | WowSkip) => void) | undefined,
    readonly conn: number,
  ) {
    this.hl = dir === 'server' ? SERVER_HEADER_LENGTH : CLIENT_HEADER_LENGTH;
    this.cycle = dir === 'server' ? KEY_LEN / SERVER_HEADER_LENGTH : 20;
    this.minSize = dir === 'server' ? 2 : 4;
    this.maxSize = dir === 'server' ? 0xffff : CLIENT_MAX_SIZE;
  }

  validOpcode(op: number): boolean {
    return this.dir === 'server' ? isServerOpcode(op) : isClientOpcode(op);
  }

  private handshake = false;

  private canLearn(): boolean {
    return this.learn && !this.key.contradicted;
  }

  /** Walk the whole direction from its first frame. `handshake`: the stream starts with the plain first frame. */
  run(handshake: boolean): void {
    this.handshake = handshake;
    this.key.weak = false;
    this.key.contradicted = false;
    const ds = this.ds;
    let index = 0;
    let s: Sync | undefined;
    const first = ds.runs[0];
    if (first === undefined) return;
    if (handshake && first.start === 0 && first.bytes.length >= this.hl) {
      const size = (first.bytes[0]! << 8) | first.bytes[1]!;
      const op = first.bytes[2]! | (first.bytes[3]! << 8);
      const { bytes, complete } = ds.copy(0, 2 + size);
      this.frame(0, size, op, 'plain', bytes, complete, index++);
      s = { pos: 2 + size, hdr: 0, last: 0 };
    } else {
      s = this.resync(first, first.start);
    }
    let guard = 0;
    while (s !== undefined && s.pos < ds.end && guard++ < 1 << 24) {
      const r = ds.runAt(s.pos);
      if (r === undefined || s.pos + this.hl > r.end) {
        // The header is (partly) in a gap: the state is lost; find the next frame in a later run.
        const next = ds.runAfter(s.pos + (r === undefined ? 0 : r.end - s.pos));
        if (next === undefined) break;
        const from = Math.max(next.start, s.pos);
        s = this.resync(next, from);
        continue;
      }
      const step = this.step(r, s, index);
      if (step === undefined) {
        // Cannot read the size here: resync further on.
        s = this.resync(r, s.pos + 1, s.pos);
        continue;
      }
      index++;
      s = step;
      // A learning-only pass has nothing more to do once it stopped learning.
      if (this.emit === undefined && this.key.contradicted) break;
    }
  }

  private frame(
    offset: number,
    size: number,
    opcode: number | undefined,
    header: WowFrame['header'],
    bytes: Uint8Array,
    complete: boolean,
    index: number,
  ): void {
    if (this.emit === undefined) return;
    const w = this.ds.whenAt(Math.min(offset + 2 + size, this.ds.end) - 1);
    this.emit({
      kind: 'frame',
      conn: this.conn,
      direction: this.dir,
      index,
      offset,
      size,
      opcode,
      name: opcode === undefined ? 'UNKNOWN' : opcodeName(opcode),
      header,
      bytes,
      complete,
      pcapFrame: w.frame,
      time: w.time,
    });
  }

  private skip(offset: number, length: number, reason: string): void {
    if (this.emit === undefined || length <= 0) return;
    const w = this.ds.whenAt(offset);
    this.emit({ kind: 'skip', conn: this.conn, direction: this.dir, offset, length, reason, pcapFrame: w.frame, time: w.time });
  }

  /** Read one enciphered frame at s.pos (its header lies in run r). Undefined when its size cannot be told. */
  private step(r: Run, s: Sync, index: number): Sync | undefined {
    const hl = this.hl;
    const k = this.key;
    const at = s.pos - r.start;
    const e = r.bytes.subarray(at, at + hl);
    const kp = (s.hdr * hl) % KEY_LEN;
    const d = (t: number) => (e[t]! - (t === 0 ? s.last : e[t - 1]!)) & 0xff;
    const where = `${this.dir}@${s.pos}`;
    if (this.canLearn() && this.dir === 'client') {
      k.learn(kp + 4, d(4), 'client-opcode-high', where);
      k.learn(kp + 5, d(5), 'client-opcode-high', where);
    }
    if (this.canLearn() && this.handshake && this.dir === 'server' && index === 1) {
      // The first enciphered server frame is SMSG_AUTH_RESPONSE.
      k.learn(kp + 2, d(2) ^ (SMSG_AUTH_RESPONSE & 0xff), 'auth-response', where);
      k.learn(kp + 3, d(3) ^ (SMSG_AUTH_RESPONSE >> 8), 'auth-response', where);
    }
    let header: WowFrame['header'] = 'key';
    let size: number;
    if (this.canLearn() && this.handshake && this.dir === 'server' && index === 1 && !(k.has(kp) && k.has(kp + 1)) && s.pos + 5 <= r.end) {
      // SMSG_AUTH_RESPONSE: its plain first payload byte tells its size (AUTH_OK: 10 bytes of payload, AUTH_WAIT_QUEUE: 5, else 1).
      const code = r.bytes[at + 4]!;
      const auth = code === 0x0c ? 12 : code === 0x1b ? 7 : 3;
      k.learn(kp, d(0) ^ (auth >> 8), 'auth-response', where);
      k.learn(kp + 1, d(1) ^ (auth & 0xff), 'auth-response', where);
    }
    const loc = this.dir === 'server' ? this.ds.located.get(s.pos) : undefined;
    if (k.weak && this.canLearn()) {
      // Held observations wait for a header at firm key positions: it tells whether the frame count is still right.
      const verdict = loc !== undefined ? this.checkLocated(loc, s.pos, kp, d) : this.checkFirm(r, s.pos, s.hdr, s.last);
      if (verdict === 'valid') k.confirm();
      else if (verdict === 'invalid') k.refute();
    }
    if (loc !== undefined) {
      // An update frame starts here: its size and opcode are known from its payload.
      size = loc.end - s.pos - 2;
      if (this.canLearn()) {
        k.learn(kp, d(0) ^ (size >> 8), 'update-payload', where);
        k.learn(kp + 1, d(1) ^ (size & 0xff), 'update-payload', where);
        k.learn(kp + 2, d(2) ^ (loc.opcode & 0xff), 'update-payload', where);
        k.learn(kp + 3, d(3) ^ (loc.opcode >> 8), 'update-payload', where);
      }
      if (!(k.firm(kp) && k.firm(kp + 1))) header = 'inferred';
    } else if (k.firm(kp) && k.firm(kp + 1)) {
      size = ((d(0) ^ k.get(kp)) << 8) | (d(1) ^ k.get(kp + 1));
    } else {
      const guess = this.guessSize(r, s, kp, d, where);
      if (guess === undefined) return undefined;
      size = guess;
      header = 'inferred';
    }
    if (size < this.minSize || size > this.maxSize) return undefined;
    const len = 2 + size;
    const { bytes, complete } = this.ds.copy(s.pos, len);
    let opcode: number | undefined;
    if (this.dir === 'server') {
      if (k.has(kp + 2) && k.has(kp + 3)) opcode = (d(2) ^ k.get(kp + 2)) | ((d(3) ^ k.get(kp + 3)) << 8);
      else if (complete) {
        for (const op of [SMSG_COMPRESSED_UPDATE_OBJECT, SMSG_UPDATE_OBJECT]) {
          if (looksLikeUpdate(op, bytes.subarray(4))) {
            opcode = op;
            if (this.canLearn()) {
              k.learn(kp + 2, d(2) ^ (op & 0xff), 'update-payload', where);
              k.learn(kp + 3, d(3) ^ (op >> 8), 'update-payload', where);
            }
            break;
          }
        }
      }
    } else if (k.has(kp + 2) && k.has(kp + 3) && k.has(kp + 4) && k.has(kp + 5)) {
      opcode = ((d(2) ^ k.get(kp + 2)) | ((d(3) ^ k.get(kp + 3)) << 8) | ((d(4) ^ k.get(kp + 4)) << 16) | ((d(5) ^ k.get(kp + 5)) << 24)) >>> 0;
    }
    // Write the decrypted header bytes we can.
    for (let t = 0; t < hl; t++) if (k.has(kp + t)) bytes[t] = d(t) ^ k.get(kp + t);
    if (loc !== undefined && this.ds.located.get(s.pos) === loc) {
      // A found update frame: its whole header is known from the payload.
      opcode = loc.opcode;
      bytes[2] = opcode & 0xff;
      bytes[3] = opcode >> 8;
    }
    if (header === 'inferred' || loc !== undefined) {
      bytes[0] = size >> 8;
      bytes[1] = size & 0xff;
    }
    this.frame(s.pos, size, opcode, header, bytes, complete, index);
    return { pos: s.pos + len, hdr: s.hdr + 1, last: e[hl - 1]! };
  }

  /**
   * A size for a frame whose size key bytes are unknown: where an update payload
   * starting here ends (strong: payloads are plain), else the next segment end.
   */
  private guessSize(r: Run, s: Sync, kp: number, d: (t: number) => number, where: string): number | undefined {
    const k = this.key;
    if (this.dir === 'server') {
      const u = this.ds.frameEndAt(r, s.pos);
      if (u !== undefined) {
        const opOk = !(k.has(kp + 2) && k.has(kp + 3)) || ((d(2) ^ k.get(kp + 2)) | ((d(3) ^ k.get(kp + 3)) << 8)) === u.opcode;
        if (opOk) {
          const size = u.end - s.pos - 2;
          if (this.canLearn()) {
            k.learn(kp, d(0) ^ (size >> 8), 'update-payload', where);
            k.learn(kp + 1, d(1) ^ (size & 0xff), 'update-payload', where);
            k.learn(kp + 2, d(2) ^ (u.opcode & 0xff), 'update-payload', where);
            k.learn(kp + 3, d(3) ^ (u.opcode >> 8), 'update-payload', where);
          }
          return size;
        }
      }
    }
    // Possible frame ends, nearest first: segment ends and starts of found update frames.
    // The nearest one that the look-ahead does not prove wrong wins: confirmed when
    // the frames after it read validly up to a header at firm key positions, else on trust.
    if (this.dir === 'client') {
      // Clients write one packet per send: the next segment end is the frame end (the zero opcode bytes check it later).
      const end = this.endCandidates(r, s.pos, 1)[0];
      if (end === undefined) return undefined;
      this.learnSize(kp, d, end - s.pos - 2, where);
      return end - s.pos - 2;
    }
    let trust: number | undefined;
    const last = r.bytes[s.pos - r.start + this.hl - 1]!;
    this.budget = PROBE_BUDGET;
    for (const end of this.endCandidates(r, s.pos, MAX_END_CANDIDATES)) {
      const v = this.probe(r, end, s.hdr + 1, last);
      if (v === 'valid') {
        this.learnSize(kp, d, end - s.pos - 2, where);
        return end - s.pos - 2;
      }
      if (v === 'unknown') {
        trust = end;
        break;
      }
    }
    if (trust === undefined) return undefined;
    this.learnSize(kp, d, trust - s.pos - 2, where);
    // Nothing confirmed this size: what follows may be misframed, so what is learned after it is held.
    this.key.weak = true;
    return trust - s.pos - 2;
  }

  /** Possible ends of a frame starting at pos: segment ends and found update frame starts, ascending, at most n. */
  private endCandidates(r: Run, pos: number, n: number): number[] {
    const out: number[] = [];
    const lo = pos + this.hl;
    const hi = pos + 2 + this.maxSize;
    for (let i = upperBound(r.ends, lo - 1); i < r.ends.length && r.ends[i]! <= hi && out.length < n; i++) out.push(r.ends[i]!);
    if (this.dir === 'server') {
      for (const q of this.ds.located.keys()) if (q >= lo && q <= hi && q < r.end) out.push(q);
    }
    return [...new Set(out)].sort((x, y) => x - y).slice(0, n);
  }

  private budget = 0;
  /** Work done by resynchronisation (header trials), capped per walk. */
  private work = 0;
  private get maxWork(): number {
    return this.emit === undefined ? 1 << 16 : 1 << 20;
  }

  /**
   * Can frames be read from `pos` (header number hdr, previous byte last) up to a
   * header at firm key positions that reads validly? Branches over the possible
   * ends of frames whose size is unknown, within a node budget.
   */
  private probe(r: Run, pos: number, hdr: number, last: number, depth = 0): 'valid' | 'invalid' | 'unknown' {
    if (--this.budget < 0 || depth > this.cycle) return 'unknown';
    if (pos + this.hl > r.end) return 'unknown';
    const k = this.key;
    const hl = this.hl;
    const kp = (hdr * hl) % KEY_LEN;
    const at = pos - r.start;
    const b = r.bytes;
    const d = (t: number) => (b[at + t]! - (t === 0 ? last : b[at + t - 1]!)) & 0xff;
    const loc = this.dir === 'server' ? this.ds.located.get(pos) : undefined;
    const verdict = loc !== undefined ? this.checkLocated(loc, pos, kp, d) : this.checkFirm(r, pos, hdr, last);
    if (verdict !== 'unknown') return verdict;
    if (this.dir === 'client') {
      const v = this.checkAt(r, pos, hdr, last);
      if (v === 'invalid') return v;
    }
    let ends: number[];
    if (loc !== undefined) ends = [loc.end];
    else if (k.firm(kp) && k.firm(kp + 1)) {
      const size = ((d(0) ^ k.get(kp)) << 8) | (d(1) ^ k.get(kp + 1));
      if (size < this.minSize || size > this.maxSize) return 'invalid';
      ends = [pos + 2 + size];
    } else ends = this.endCandidates(r, pos, 4);
    let unknown = false;
    for (const end of ends) {
      if (end > r.end) {
        unknown = true;
        continue;
      }
      const v = this.probe(r, end, hdr + 1, b[at + hl - 1]!, depth + 1);
      if (v === 'valid') return v;
      if (v === 'unknown') unknown = true;
    }
    return unknown ? 'unknown' : 'invalid';
  }

  /**
   * checkAt with all four key bytes firm, made strict: a 'valid' header must also
   * describe a frame that ends inside the run on a segment end, at a found update
   * frame, or right before another valid header.
   */
  private checkFirm(r: Run, pos: number, hdr: number, last: number): 'valid' | 'invalid' | 'unknown' {
    const v = this.checkAt(r, pos, hdr, last, true);
    if (v !== 'valid') return v;
    const k = this.key;
    const kp = (hdr * this.hl) % KEY_LEN;
    const at = pos - r.start;
    const b = r.bytes;
    const size = ((((b[at]! - last) & 0xff) ^ k.get(kp)) << 8) | (((b[at + 1]! - b[at]!) & 0xff) ^ k.get(kp + 1));
    const end = pos + 2 + size;
    if (end > r.end) return 'unknown';
    if (end === r.end || this.ds.located.has(end)) return 'valid';
    const i = upperBound(r.ends, end - 1);
    if (r.ends[i] === end) return 'valid';
    const next = this.checkAt(r, end, hdr + 1, b[at + this.hl - 1]!, true);
    return next === 'valid' ? 'valid' : next === 'invalid' ? 'invalid' : 'unknown';
  }

  /** An update frame found from its payload, read at key position kp: do the firm key bytes there agree? */
  private checkLocated(loc: { end: number; opcode: number }, pos: number, kp: number, d: (t: number) => number): 'valid' | 'invalid' | 'unknown' {
    const k = this.key;
    const size = loc.end - pos - 2;
    const plain = [size >> 8, size & 0xff, loc.opcode & 0xff, loc.opcode >> 8];
    let firm = 0;
    for (let t = 1; t < 4; t++) {
      if (!k.firm(kp + t)) continue;
      if ((d(t) ^ k.get(kp + t)) !== plain[t]) return 'invalid';
      firm++;
    }
    return firm >= 2 ? 'valid' : 'unknown';
  }

  private learnSize(kp: number, d: (t: number) => number, size: number, where: string): void {
    if (!this.canLearn()) return;
    const kind: KeyEvidence = this.dir === 'server' ? 'segment-end' : 'client-segment-end';
    this.key.learn(kp, d(0) ^ (size >> 8), kind, where);
    this.key.learn(kp + 1, d(1) ^ (size & 0xff), kind, where);
  }

  /**
   * Would a frame start at `pos` (header number `hdr`, previous encrypted byte
   * `last`)? `valid`: its header decrypts to a valid size and opcode, or it is an
   * update frame; `invalid`: it decrypts to nonsense; `unknown`: key bytes missing
   * or nothing to read there.
   */
  private checkAt(r: Run, pos: number, hdr: number, last: number, whole = false): 'valid' | 'invalid' | 'unknown' {
    if (pos + this.hl > r.end) return 'unknown';
    const k = this.key;
    const hl = this.hl;
    const kp = (hdr * hl) % KEY_LEN;
    if (whole && !(k.firm(kp) && k.firm(kp + 1) && k.firm(kp + 2) && k.firm(kp + 3))) return 'unknown';
    const b = r.bytes;
    const at = pos - r.start;
    const p = (t: number) => ((b[at + t]! - (t === 0 ? last : b[at + t - 1]!)) & 0xff) ^ k.get(kp + t);
    if (this.dir === 'client') {
      // The opcode's upper bytes are zero in every client header.
      for (const t of [4, 5]) if (k.firm(kp + t) && p(t) !== 0) return 'invalid';
    }
    if (k.firm(kp) && k.firm(kp + 1)) {
      const size = (p(0) << 8) | p(1);
      if (size < this.minSize || size > this.maxSize) return 'invalid';
    }
    if (k.firm(kp + 2) && k.firm(kp + 3)) {
      const op = p(2) | (p(3) << 8);
      return this.validOpcode(op) ? 'valid' : 'invalid';
    }
    if (this.dir === 'client' && k.firm(kp + 4) && k.firm(kp + 5)) return 'valid';
    return 'unknown';
  }

  /**
   * Find the next frame start in run r at or after `from`: a position, a key
   * phase and a previous byte under which at least RESYNC_CHAIN headers in a row
   * decrypt to valid sizes and opcodes (or the chain ends exactly at the run end).
   * Skipped bytes (from `skipFrom`) are reported.
   */
  private resync(r: Run | undefined, from: number, skipFrom = from): Sync | undefined {
    const ds = this.ds;
    while (r !== undefined) {
      const found = this.searchRun(r, Math.max(from, r.start));
      if (found !== undefined) {
        this.skip(skipFrom, found.pos - skipFrom, skipFrom < r.start ? 'gap: frame start searched after it' : 'no frame start readable here');
        return found;
      }
      const nx = ds.runAfter(r.end);
      this.skip(skipFrom, r.end - skipFrom, this.key.known() === 0 ? 'no key bytes known' : 'no frame start found');
      skipFrom = r.end;
      r = nx;
      from = nx?.start ?? 0;
    }
    return undefined;
  }

  private searchRun(r: Run, from: number): Sync | undefined {
    const k = this.key;
    const hl = this.hl;
    // Candidate starts: `from` itself, then segment starts after it (frames usually start a segment).
    const starts: number[] = [from];
    for (let i = upperBound(r.starts, from); i < r.starts.length && starts.length < MAX_RESYNC_STARTS; i++) starts.push(r.starts[i]!);
    for (const st of starts) {
      if (st + hl > r.end) break;
      let best: { sync: Sync; score: number } | undefined;
      let ties = 0;
      for (let ph = 0; ph < this.cycle; ph++) {
        const kp = (ph * hl) % KEY_LEN;
        if (!k.has(kp) || !k.has(kp + 1) || !k.has(kp + 2) || !k.has(kp + 3)) continue;
        // The previous byte only changes the size's high byte: test the opcode (and a client's zero bytes) once for all 256.
        const at = st - r.start;
        const b = r.bytes;
        const op = (((b[at + 2]! - b[at + 1]!) & 0xff) ^ k.get(kp + 2)) | ((((b[at + 3]! - b[at + 2]!) & 0xff) ^ k.get(kp + 3)) << 8);
        if (!this.validOpcode(op)) continue;
        if (this.dir === 'client' && [4, 5].some((t) => k.has(kp + t) && (((b[at + t]! - b[at + t - 1]!) & 0xff) ^ k.get(kp + t)) !== 0)) continue;
        if ((this.work += 256) > this.maxWork) return undefined;
        for (let j = 0; j < 256; j++) {
          const score = this.chain(r, st, ph, j);
          if (score < 3) continue;
          if (best === undefined || score > best.score) {
            best = { sync: { pos: st, hdr: ph, last: j }, score };
            ties = 0;
          } else if (score === best.score) ties++;
        }
      }
      if (best !== undefined && ties === 0) return best.sync;
    }
    return undefined;
  }

  /**
   * Score of a frame start `pos` under key phase `ph` and previous byte `j`: the
   * number of headers in a row (up to RESYNC_CHAIN) that decrypt to a valid size
   * and opcode, plus one when the chain ends exactly at the run end; 0 when a
   * header is invalid or a frame runs past the run.
   */
  private chain(r: Run, pos: number, ph: number, j: number): number {
    const k = this.key;
    const hl = this.hl;
    const b = r.bytes;
    let n = 0;
    let hdr = ph;
    let last = j;
    while (n < RESYNC_CHAIN) {
      if (pos === r.end) return n + 1;
      if (pos + hl > r.end) return n;
      const kp = (hdr * hl) % KEY_LEN;
      if (!k.has(kp) || !k.has(kp + 1) || !k.has(kp + 2) || !k.has(kp + 3)) return n;
      const at = pos - r.start;
      const p0 = ((b[at]! - last) & 0xff) ^ k.get(kp);
      const p1 = ((b[at + 1]! - b[at]!) & 0xff) ^ k.get(kp + 1);
      const p2 = ((b[at + 2]! - b[at + 1]!) & 0xff) ^ k.get(kp + 2);
      const p3 = ((b[at + 3]! - b[at + 2]!) & 0xff) ^ k.get(kp + 3);
      const size = (p0 << 8) | p1;
      const op = p2 | (p3 << 8);
      if (size < this.minSize || size > this.maxSize || op >= NUM_OPCODES || !this.validOpcode(op)) return 0;
      if (this.dir === 'client') {
        for (const t of [4, 5]) if (k.has(kp + t) && (((b[at + t]! - b[at + t - 1]!) & 0xff) ^ k.get(kp + t)) !== 0) return 0;
      }
      n++;
      last = b[at + hl - 1]!;
      hdr++;
      pos += 2 + size;
      if (pos > r.end) return n; // runs into the next gap: what was read counts
    }
    return n;
  }
}

// ---------------------------------------------------------------------------

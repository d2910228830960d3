/**
 * WoW 1.12.1 world connections in a packet capture: TCP reassembly (core/tcp),
 * header decryption with the session key when it is given, key recovery from
 * known plaintext when it is not, framing of both directions, resynchronisation
 * after gaps.
 *
 * Keyless recovery. The header cipher is `e = (p XOR K[i]) + e_prev`, so any
 * header byte whose plaintext is known gives its key byte: K[i] = (e - e_prev)
 * XOR p, where e_prev is the previous encrypted byte on the wire. Known
 * plaintext comes from:
 *
 * - `client-opcode-high`: client headers carry the opcode as a u32 whose upper
 *   two bytes are always zero (1.12 has 828 opcodes); 20 client headers touch
 *   all 40 key positions;
 * - `auth-response`: the server's first enciphered frame is SMSG_AUTH_RESPONSE;
 * - `update-payload`: payloads are plain, so a frame whose payload decodes as
 *   SMSG_UPDATE_OBJECT / SMSG_COMPRESSED_UPDATE_OBJECT tells its opcode and size;
 * - `segment-end`: a frame whose size key bytes are unknown is assumed to end
 *   where a TCP segment ends (servers and clients write most packets with one
 *   send), which gives its size.
 *
 * Every hypothesis is a weighted vote per key position; the best-voted value
 * wins. The frames are then read with the recovered bytes; a frame whose size
 * cannot be read is framed by the segment-end rule (`header: 'inferred'`).
 *
 * Bounded: the TCP limits of core/tcp, `maxConnections`, and fixed caps on the
 * candidates tried per frame and per resynchronisation.
 */
import { DecodeError } from '../../core/errors.js';
import { readCapture, type CaptureOptions } from '../../core/pcap.js';
import { frameToTcp, TcpReassembler, type TcpConnection, type TcpEvent, type TcpLimits } from '../../core/tcp.js';
import { unzlibSync } from 'fflate';
import { adler32, decodeBody, decodePacket } from './codec.js';
import { CLIENT_HEADER_LENGTH, CMSG_AUTH_SESSION, SERVER_HEADER_LENGTH, SESSION_KEY_LENGTH, SMSG_AUTH_CHALLENGE, SMSG_AUTH_RESPONSE } from './cipher.js';
import { isClientOpcode, isServerOpcode, NUM_OPCODES, opcodeName } from './tables/opcodes.js';

const KEY_LEN = SESSION_KEY_LENGTH;
const SMSG_UPDATE_OBJECT = 0x0a9;
const SMSG_COMPRESSED_UPDATE_OBJECT = 0x1f6;
/** The client header sizes MaNGOS accepts: 4 (opcode only) to 0x2800. */
const CLIENT_MAX_SIZE = 0x2800;

export type WowDirection = 'server' | 'client';

export interface WowCaptureOptions {
  /** The 40 key bytes in cipher order (see `sessionKeyFromHex`); without it the key is recovered. */
  sessionKey?: Uint8Array;
  /** Follow only connections with this server port. */
  serverPort?: number;
  /** Limits of the TCP reassembler. */
  tcp?: Partial<TcpLimits>;
  /** Limits of the capture reader. */
  capture?: CaptureOptions;
  /** Most world connections decoded (default 64); further ones are reported and skipped. */
  maxConnections?: number;
}

/** Kinds of evidence for recovered key bytes. */
export type KeyEvidence = 'client-opcode-high' | 'auth-response' | 'update-payload' | 'segment-end' | 'client-segment-end';

export interface WowKeyReport {
  kind: 'key';
  conn: number;
  source: 'given' | 'recovered';
  /** Key bytes known (0..40). */
  known: number;
  /** The key bytes in cipher order, null where unknown. */
  key: (number | null)[];
  /** Per evidence kind: how many key-byte observations it gave that agree with the final key. */
  evidence: Partial<Record<KeyEvidence, number>>;
  /** Observations that disagreed with the final key (wrong hypotheses). */
  conflicts: number;
  /** Enciphered frames read with this key, both directions. */
  frames: number;
  /** Of those, frames whose opcode could not be read or is not one of its direction (a sign of missing or wrong key bytes). */
  badOpcodes: number;
}

export interface WowFrame {
  kind: 'frame';
  conn: number;
  direction: WowDirection;
  /** Number of the frame in its direction (the plain first frame is 0). */
  index: number;
  /** Stream offset of the header. */
  offset: number;
  /** The header's size field (server: payload + 2; client: payload + 4). */
  size: number;
  /** Undefined when the opcode bytes could not be decrypted. */
  opcode: number | undefined;
  name: string;
  /** `plain` (handshake), `key` (decrypted), `inferred` (framed by a segment end, header key partly unknown). */
  header: 'plain' | 'key' | 'inferred';
  /** The frame with its header decrypted (undecryptable header bytes left as on the wire). */
  bytes: Uint8Array;
  /** False when part of the payload fell into a capture gap (those bytes are zero). */
  complete: boolean;
  /** Capture frame index and time of the frame's last byte. */
  pcapFrame: number;
  time: number;
}

export interface WowGap {
  kind: 'gap';
  conn: number;
  direction: WowDirection;
  offset: number;
  length: number;
  reason: 'lost' | 'overflow';
  pcapFrame: number;
  time: number;
}

/** Bytes that could not be framed (after a gap, or without key bytes); decoding resumes at `offset + length`. */
export interface WowSkip {
  kind: 'skip';
  conn: number;
  direction: WowDirection;
  offset: number;
  length: number;
  reason: string;
  pcapFrame: number;
  time: number;
}

export interface WowConnectionInfo {
  kind: 'connection';
  conn: number;
  client: string;
  server: string;
  /** True when the plain handshake frames (SMSG_AUTH_CHALLENGE / CMSG_AUTH_SESSION) were seen. */
  handshake: boolean;
  /** False for a connection that is not a WoW world connection (skipped). */
  world: boolean;
  note?: string;
  pcapFrame: number;
  time: number;
}

export type WowCaptureEvent = WowConnectionInfo | WowKeyReport | WowFrame | WowGap | WowSkip;

// ---------------------------------------------------------------------------
// streams

interface Run {
  start: number;
  end: number;
  bytes: Uint8Array;
  /** Absolute stream offsets where segments end, ascending. */
  ends: number[];
  /** Absolute offsets where segments start, with their capture frame and time. */
  starts: number[];
  frames: number[];
  times: number[];
}

interface Gap {
  offset: number;
  length: number;
  reason: 'lost' | 'overflow';
  frame: number;
  time: number;
}

class DirStream {
  runs: Run[] = [];
  gaps: Gap[] = [];
  private parts: { offset: number; data: Uint8Array; frame: number; time: number }[] = [];
  end = 0;

  /** Update frames found from their plain payloads alone (server streams): start → end and opcode. */
  located = new Map<number, { end: number; opcode: number }>();

  /** Find update frames without the key: at segment starts, after found frames, and where a zlib header sits. */
  locate(): void {
    for (const r of this.runs) {
      const todo: number[] = [...r.starts];
      const b = r.bytes;
      for (let i = 0; i + 10 <= b.length; i++) {
        if (b[i + 8] === 0x78 && ((0x78 << 8) | b[i + 9]!) % 31 === 0 && b[i + 7]! < 0x10) todo.push(r.start + i);
      }
      const tried = new Set<number>();
      let guard = 0;
      while (todo.length > 0 && guard++ < MAX_LOCATE) {
        const q = todo.pop()!;
        if (tried.has(q)) continue;
        tried.add(q);
        const u = updateFrameEnd(r, q);
        if (u === undefined) continue;
        this.located.set(q, u);
        if (u.end < r.end) todo.push(u.end);
      }
    }
  }

  /** Latest capture frame and time so far: bytes count as received once everything before them arrived. */
  private lastFrame = -1;
  private lastTime = 0;

  add(offset: number, data: Uint8Array, frame: number, time: number): void {
    this.lastFrame = Math.max(this.lastFrame, frame);
    this.lastTime = Math.max(this.lastTime, time);
    this.parts.push({ offset, data, frame: this.lastFrame, time: this.lastTime });
    this.end = offset + data.length;
  }

  gap(g: Gap): void {
    this.gaps.push(g);
    this.end = g.offset + g.length;
  }

  /** Join the parts into runs (contiguous data between gaps). */
  seal(): void {
    let i = 0;
    const ps = this.parts;
    while (i < ps.length) {
      let j = i;
      let n = 0;
      while (j < ps.length && (j === i || ps[j]!.offset === ps[j - 1]!.offset + ps[j - 1]!.data.length)) n += ps[j++]!.data.length;
      const bytes = new Uint8Array(n);
      const run: Run = { start: ps[i]!.offset, end: ps[i]!.offset + n, bytes, ends: [], starts: [], frames: [], times: [] };
      let at = 0;
      for (let k = i; k < j; k++) {
        const p = ps[k]!;
        bytes.set(p.data, at);
        run.starts.push(run.start + at);
        run.frames.push(p.frame);
        run.times.push(p.time);
        at += p.data.length;
        run.ends.push(run.start + at);
      }
      this.runs.push(run);
      i = j;
    }
    this.parts = [];
  }

  runAt(pos: number): Run | undefined {
    let lo = 0;
    let hi = this.runs.length - 1;
    while (lo <= hi) {
      const m = (lo + hi) >> 1;
      const r = this.runs[m]!;
      if (pos < r.start) hi = m - 1;
      else if (pos >= r.end) lo = m + 1;
      else return r;
    }
    return undefined;
  }

  /** The first run starting at or after `pos`. */
  runAfter(pos: number): Run | undefined {
    for (const r of this.runs) if (r.end > pos) return r;
    return undefined;
  }

  /** Capture frame and time of the byte at `pos` (the segment holding it). */
  whenAt(pos: number): { frame: number; time: number } {
    const r = this.runAt(pos) ?? this.runAt(pos - 1);
    if (r === undefined) {
      const g = this.gaps.find((x) => pos >= x.offset && pos < x.offset + x.length) ?? this.gaps[this.gaps.length - 1];
      return { frame: g?.frame ?? -1, time: g?.time ?? 0 };
    }
    const k = Math.max(0, upperBound(r.starts, pos) - 1);
    return { frame: r.frames[k]!, time: r.times[k]! };
  }

  /** `len` bytes from `pos`; bytes in gaps are zero. */
  copy(pos: number, len: number): { bytes: Uint8Array; complete: boolean } {
    const out = new Uint8Array(len);
    let complete = true;
    let p = pos;
    while (p < pos + len) {
      const r = this.runAt(p);
      if (r === undefined) {
        complete = false;
        const nx = this.runAfter(p);
        if (nx === undefined || nx.start >= pos + len) break;
        p = nx.start;
        continue;
      }
      const n = Math.min(r.end, pos + len) - p;
      out.set(r.bytes.subarray(p - r.start, p - r.start + n), p - pos);
      p += n;
    }
    return { bytes: out, complete };
  }
}

/** Index of the first element > x. */
function upperBound(a: number[], x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const m = (lo + hi) >> 1;
    if (a[m]! <= x) lo = m + 1;
    else hi = m;
  }
  return lo;
}

// ---------------------------------------------------------------------------
// key book

const WEIGHT: Record<KeyEvidence, number> = {
  'client-opcode-high': 3,
  'auth-response': 4,
  'update-payload': 4,
  'segment-end': 1,
  'client-segment-end': 1,
};

/** Vote weight from which a key byte is relied on for framing. */
const FIRM = 3;

class KeyBook {
  val = new Int16Array(KEY_LEN).fill(-1);
  /** Vote weight of value v at key position p: weights.get(p * 256 + v). */
  weights = new Map<number, number>();
  /** obs.get(p * 256 + v): evidence kind → count. */
  obs = new Map<number, Map<KeyEvidence, number>>();
  changed = false;
  /** Observations already counted (direction, stream offset, key position): every pass sees the same frames again. */
  private seen = new Set<string>();

  static given(key: Uint8Array): KeyBook {
    const k = new KeyBook();
    for (let i = 0; i < KEY_LEN; i++) {
      k.val[i] = key[i]!;
      k.weights.set(i * 256 + key[i]!, FIRM);
    }
    return k;
  }

  /** Known with enough weight: one strong observation or three agreeing weak ones. */
  firm(p: number): boolean {
    const v = this.val[p % KEY_LEN]!;
    return v >= 0 && (this.weights.get((p % KEY_LEN) * 256 + v) ?? 0) >= FIRM;
  }

  has(p: number): boolean {
    return this.val[p % KEY_LEN]! >= 0;
  }

  get(p: number): number {
    return this.val[p % KEY_LEN]!;
  }

  /** Set by a pass that took a size on trust: later observations count as weak. */
  weak = false;
  /** Set when a weak observation contradicted a firm byte (the pass is misframed). */
  contradicted = false;

  /** Observations made after a size taken on trust, held until a later header confirms the framing. */
  private pending: [number, number, KeyEvidence, string][] = [];

  /** A header at a firm key position read validly: the framing since the trusted size was right. */
  confirm(): void {
    const p = this.pending;
    this.pending = [];
    this.weak = false;
    for (const [pos, v, kind, where] of p) this.learn(pos, v, kind, where);
  }

  /** A header at a firm key position read as nonsense: forget what was held, learn nothing more in this pass. */
  refute(): void {
    this.pending = [];
    this.contradicted = true;
  }

  learn(pos: number, v: number, kind: KeyEvidence, where: string): void {
    if (this.contradicted) return;
    if (this.weak) {
      if (this.pending.length < 1 << 16) this.pending.push([pos, v, kind, where]);
      return;
    }
    const p = pos % KEY_LEN;
    v &= 0xff;
    const id = `${where}:${p}:${v}:${kind}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const wasFirm = this.firm(p);
    const w = (this.weights.get(p * 256 + v) ?? 0) + WEIGHT[kind];
    this.weights.set(p * 256 + v, w);
    let o = this.obs.get(p * 256 + v);
    if (o === undefined) this.obs.set(p * 256 + v, (o = new Map()));
    o.set(kind, (o.get(kind) ?? 0) + 1);
    const cur = this.val[p]!;
    if (cur < 0 || (cur !== v && w > (this.weights.get(p * 256 + cur) ?? 0))) {
      this.val[p] = v;
      this.changed = true;
    }
    if (!wasFirm && this.firm(p)) this.changed = true;
  }

  clone(): KeyBook {
    const k = new KeyBook();
    k.val = this.val.slice();
    k.weights = new Map(this.weights);
    k.obs = new Map([...this.obs].map(([pv, o]) => [pv, new Map(o)]));
    k.seen = new Set(this.seen);
    return k;
  }

  known(): number {
    let n = 0;
    for (const v of this.val) if (v >= 0) n++;
    return n;
  }

  report(conn: number, source: 'given' | 'recovered'): WowKeyReport {
    const evidence: Partial<Record<KeyEvidence, number>> = {};
    let conflicts = 0;
    for (const [pv, o] of this.obs) {
      for (const [kind, n] of o) {
        if (pv % 256 === this.val[pv >> 8]) evidence[kind] = (evidence[kind] ?? 0) + n;
        else conflicts += n;
      }
    }
    return {
      kind: 'key',
      conn,
      source,
      known: this.known(),
      key: Array.from(this.val, (v) => (v < 0 ? null : v)),
      evidence,
      conflicts,
      frames: 0,
      badOpcodes: 0,
    };
  }
}

// ---------------------------------------------------------------------------
// framing one direction

interface Sync {
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

/** Does this plain server frame decode as one of the update opcodes? (Strong evidence: payloads are plain.) */
function looksLikeUpdate(opcode: number, payload: Uint8Array): boolean {
  if (opcode === SMSG_COMPRESSED_UPDATE_OBJECT) {
    if (payload.length < 10 || payload[4] !== 0x78 || ((0x78 << 8) | payload[5]!) % 31 !== 0) return false;
  } else if (opcode === SMSG_UPDATE_OBJECT) {
    if (payload.length < 5 || payload[4]! > 1 || payload[1] !== 0 || payload[2] !== 0 || payload[3] !== 0 || payload[0] === 0) return false;
  } else return false;
  const f = new Uint8Array(4 + payload.length);
  f[0] = ((payload.length + 2) >> 8) & 0xff;
  f[1] = (payload.length + 2) & 0xff;
  f[2] = opcode & 0xff;
  f[3] = opcode >> 8;
  f.set(payload, 4);
  try {
    decodePacket(f);
    return true;
  } catch {
    return false;
  }
}

/** Most positions tried when locating update frames in one run. */
const MAX_LOCATE = 1 << 16;

/** Largest inflated body tried while looking for the end of a compressed update. */
const MAX_SNIFF_BODY = 1 << 20;

/**
 * If the bytes of run r from `pos` (a frame start) hold an update frame whose
 * payload is plain, where that frame ends: for SMSG_COMPRESSED_UPDATE_OBJECT
 * the Adler-32 trailer of the inflated body, for SMSG_UPDATE_OBJECT the end of
 * the last block. Verified by decoding the whole frame.
 */
function updateFrameEnd(r: Run, pos: number): { end: number; opcode: number } | undefined {
  const b = r.bytes;
  const at = pos - r.start + 4;
  if (at + 10 > b.length) return undefined;
  const limit = Math.min(b.length, at + 0xffff - 2);
  if (b[at + 4] === 0x78 && ((0x78 << 8) | b[at + 5]!) % 31 === 0) {
    const usize = (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
    if (usize === 0 || usize > MAX_SNIFF_BODY) return undefined;
    let body: Uint8Array;
    try {
      body = unzlibSync(b.subarray(at + 4, limit), { out: new Uint8Array(usize) });
    } catch {
      return undefined;
    }
    if (body.length !== usize) return undefined;
    const a = adler32(body);
    const t0 = a >>> 24;
    const t1 = (a >>> 16) & 0xff;
    const t2 = (a >>> 8) & 0xff;
    const t3 = a & 0xff;
    for (let i = at + 6; i + 4 <= limit; i++) {
      if (b[i] === t0 && b[i + 1] === t1 && b[i + 2] === t2 && b[i + 3] === t3) {
        const payload = b.subarray(at, i + 4);
        if (looksLikeUpdate(SMSG_COMPRESSED_UPDATE_OBJECT, payload)) return { end: r.start + i + 4, opcode: SMSG_COMPRESSED_UPDATE_OBJECT };
      }
    }
    return undefined;
  }
  if (b[at]! > 0 && b[at + 1] === 0 && b[at + 2] === 0 && b[at + 3] === 0 && b[at + 4]! <= 1) {
    try {
      decodeBody(b.subarray(at, limit));
      return { end: r.start + limit, opcode: SMSG_UPDATE_OBJECT };
    } catch (e) {
      // The body is self-delimiting: trailing bytes make the reader stop right at its end.
      if (!(e instanceof DecodeError) || e.expected !== 'end of message' || e.offset < 5) return undefined;
      const end = at + e.offset;
      if (looksLikeUpdate(SMSG_UPDATE_OBJECT, b.subarray(at, end))) return { end: r.start + end, opcode: SMSG_UPDATE_OBJECT };
    }
  }
  return undefined;
}

class Framer {
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
      const u = updateFrameEnd(r, s.pos);
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
// connections

interface ConnState {
  info: TcpConnection;
  dirs: [DirStream, DirStream];
  frame: number;
  time: number;
}

function endpoint(e: { addr: string; port: number }): string {
  return e.addr.includes(':') ? `[${e.addr}]:${e.port}` : `${e.addr}:${e.port}`;
}

/** Does a direction start with its plain handshake frame? */
function startsWithHandshake(ds: DirStream, dir: WowDirection): boolean {
  const r = ds.runs[0];
  if (r === undefined || r.start !== 0 || r.bytes.length < 6) return false;
  const b = r.bytes;
  const size = (b[0]! << 8) | b[1]!;
  if (dir === 'server') return size === 6 && (b[2]! | (b[3]! << 8)) === SMSG_AUTH_CHALLENGE;
  return size >= 4 && (b[2]! | (b[3]! << 8)) === CMSG_AUTH_SESSION && b[4] === 0 && b[5] === 0;
}

/** Most learning passes over a connection. */
const MAX_ROUNDS = 8;

/** Recover what can be recovered of the key of one connection. */
function recoverKey(server: DirStream, client: DirStream, hs: [boolean, boolean], conn: number): KeyBook {
  const key = new KeyBook();
  // Each pass learns up to the first size taken on trust, so the known part grows by about one key position group per pass.
  for (let round = 0; round < MAX_ROUNDS; round++) {
    key.changed = false;
    key.weak = false;
    key.contradicted = false;
    if (hs[0]) new Framer(client, 'client', key, true, undefined, conn).run(true);
    if (hs[1]) new Framer(server, 'server', key, true, undefined, conn).run(true);
    if (!key.changed) break;
  }
  return key;
}

/** Decode the world connections of reassembled TCP events. */
function* decodeConnections(conns: ConnState[], opts: WowCaptureOptions): Generator<WowCaptureEvent> {
  const max = opts.maxConnections ?? 64;
  let done = 0;
  for (const c of conns) {
    const [cs, ss] = c.dirs;
    cs.seal();
    ss.seal();
    const hs: [boolean, boolean] = [startsWithHandshake(cs, 'client'), startsWithHandshake(ss, 'server')];
    const info: WowConnectionInfo = {
      kind: 'connection',
      conn: c.info.id,
      client: endpoint(c.info.client),
      server: endpoint(c.info.server),
      handshake: hs[0] || hs[1],
      world: hs[0] || hs[1] || opts.sessionKey !== undefined,
      pcapFrame: c.frame,
      time: c.time,
    };
    if (!info.world) {
      info.note = 'no SMSG_AUTH_CHALLENGE / CMSG_AUTH_SESSION at the stream start and no session key: not read as a world connection';
      yield info;
      continue;
    }
    if (done >= max) {
      info.world = false;
      info.note = `more than maxConnections (${max}) world connections: skipped`;
      yield info;
      continue;
    }
    done++;
    yield info;
    const given = opts.sessionKey !== undefined;
    let key: KeyBook;
    if (given) key = KeyBook.given(opts.sessionKey!);
    else {
      // The client headers usually give the whole key; finding update frames from their payloads (inflating them) is the costly fallback.
      key = recoverKey(ss, cs, hs, c.info.id);
      if (key.known() < KEY_LEN) {
        ss.locate();
        key = recoverKey(ss, cs, hs, c.info.id);
      }
    }
    const report = key.report(c.info.id, given ? 'given' : 'recovered');
    const events: (WowFrame | WowSkip | WowGap)[] = [];
    for (const [ds, dir, h] of [
      [ss, 'server', hs[1]],
      [cs, 'client', hs[0]],
    ] as const) {
      for (const g of ds.gaps)
        events.push({ kind: 'gap', conn: c.info.id, direction: dir, offset: g.offset, length: g.length, reason: g.reason, pcapFrame: g.frame, time: g.time });
      // A copy of the key: the segment-end rule may still fill bytes in while reading.
      new Framer(ds, dir, given ? key : key.clone(), !given, (e) => events.push(e), c.info.id).run(h);
    }
    // In capture order; within a capture frame, by direction then stream offset.
    events.sort((a, b) => a.pcapFrame - b.pcapFrame || (a.direction === b.direction ? a.offset - b.offset : a.direction === 'server' ? -1 : 1));
    // How well the key reads this connection: enciphered frames whose opcode is unknown or not one of their direction.
    for (const e of events) {
      if (e.kind !== 'frame' || e.header === 'plain') continue;
      report.frames++;
      const ok = e.opcode !== undefined && (e.direction === 'server' ? isServerOpcode(e.opcode) : isClientOpcode(e.opcode));
      if (!ok) report.badOpcodes++;
    }
    yield report;
    yield* events;
  }
}

/**
 * Read a capture file and decode its WoW world connections: connection, key,
 * frame, gap and skip events in capture order per connection. Throws only
 * DecodeError (a malformed capture file).
 */
export function decodeWowCapture(bytes: Uint8Array, opts: WowCaptureOptions = {}): WowCaptureEvent[] {
  if (opts.sessionKey !== undefined && opts.sessionKey.length !== KEY_LEN)
    throw new DecodeError(0, 'sessionKey', `${KEY_LEN} key bytes`, String(opts.sessionKey.length));
  const cap = readCapture(bytes, opts.capture);
  const conns = new Map<number, ConnState>();
  const order: ConnState[] = [];
  const onEvent = (e: TcpEvent) => {
    if (e.type === 'drop') return;
    let c = conns.get(e.conn.id);
    if (c === undefined) {
      c = { info: e.conn, dirs: [new DirStream(), new DirStream()], frame: e.frame, time: e.time };
      conns.set(e.conn.id, c);
      order.push(c);
    }
    if (e.type === 'data') c.dirs[e.dir].add(e.offset, e.data, e.frame, e.time);
    else if (e.type === 'gap') c.dirs[e.dir].gap({ offset: e.offset, length: e.length, reason: e.reason, frame: e.frame, time: e.time });
  };
  const re = new TcpReassembler(onEvent, opts.tcp);
  for (let i = 0; i < cap.frames.length; i++) {
    const s = frameToTcp(cap.frames[i]!, i);
    if (s === undefined) continue;
    if (opts.serverPort !== undefined && s.srcPort !== opts.serverPort && s.dstPort !== opts.serverPort) continue;
    re.push(s);
  }
  const last = cap.frames[cap.frames.length - 1];
  re.finish(cap.frames.length, last?.time ?? 0);
  try {
    return [...decodeConnections(order, opts)];
  } catch (e) {
    if (e instanceof DecodeError) throw e;
    throw new DecodeError(0, 'capture', 'a decodable capture', `internal error: ${e instanceof Error ? e.message : String(e)}`);
  }
}

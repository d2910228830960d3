/**
 * Test-side writers: WebSocket sessions (our frame encoder, node:zlib for
 * permessage-deflate, with and without context takeover) and TCP/IPv4
 * segments in a pcap. Independent of the readers under test except for
 * `encodeFrame`, whose bytes are checked against RFC 6455's examples.
 */
import { constants, deflateRawSync } from 'node:zlib';
import { writePcap, LINKTYPE_RAW } from '../../src/core/pcap.js';
import { encodeFrame } from '../../src/core/websocket.js';

export type Rand = () => number;
const int = (r: Rand, n: number): number => Math.floor(r() * n);

/** permessage-deflate compressor of one side: raw DEFLATE, sync flush, tail removed; `takeover` keeps a 32 KiB window (as a preset dictionary). */
export class PmdWriter {
  private history = new Uint8Array(0);
  constructor(readonly takeover: boolean) {}
  compress(msg: Uint8Array): Uint8Array {
    const opts: { finishFlush: number; dictionary?: Uint8Array; level: number } = { finishFlush: constants.Z_SYNC_FLUSH, level: 6 };
    if (this.takeover && this.history.length > 0) opts.dictionary = this.history;
    const out = new Uint8Array(deflateRawSync(msg, opts));
    if (this.takeover) {
      const h = new Uint8Array(this.history.length + msg.length);
      h.set(this.history);
      h.set(msg, this.history.length);
      this.history = h.slice(Math.max(0, h.length - 32768));
    }
    const n = out.length;
    if (!(out[n - 4] === 0 && out[n - 3] === 0 && out[n - 2] === 0xff && out[n - 1] === 0xff)) throw new Error('no sync flush tail');
    return out.subarray(0, n - 4);
  }
}

export interface SideOpts {
  masked: boolean;
  pmd?: PmdWriter;
  /** Chance that a message is compressed (when pmd is set). */
  compressRate?: number;
  /** Chance of a control frame before a message / between fragments. */
  controlRate?: number;
}

/** Frames of one message: random fragmentation, optional compression, control frames in between. Returns the wire bytes and the control payloads written. */
export function writeMessage(r: Rand, msg: Uint8Array, o: SideOpts, opcode = 2): { bytes: Uint8Array[]; controls: number } {
  const compress = o.pmd !== undefined && r() < (o.compressRate ?? 0.8);
  const body = compress ? o.pmd!.compress(msg) : msg;
  const mask = (): Uint8Array | undefined => (o.masked ? new Uint8Array([int(r, 256), int(r, 256), int(r, 256), int(r, 256)]) : undefined);
  const pieces = body.length === 0 || r() < 0.6 ? 1 : 1 + int(r, Math.min(5, body.length));
  const cuts = new Set<number>();
  while (cuts.size < pieces - 1) cuts.add(1 + int(r, body.length - 1));
  const bounds = [0, ...[...cuts].sort((a, b) => a - b), body.length];
  const out: Uint8Array[] = [];
  let controls = 0;
  for (let i = 0; i + 1 < bounds.length; i++) {
    if (r() < (o.controlRate ?? 0)) {
      out.push(encodeFrame({ opcode: r() < 0.5 ? 9 : 10, payload: new Uint8Array([int(r, 256), int(r, 256)]), mask: mask() }));
      controls++;
    }
    const m = mask();
    const f: Parameters<typeof encodeFrame>[0] = {
      opcode: i === 0 ? opcode : 0,
      payload: body.subarray(bounds[i]!, bounds[i + 1]!),
      fin: i + 2 === bounds.length,
      rsv1: i === 0 && compress,
    };
    if (m) f.mask = m;
    if (r() < 0.1) f.forceLength = r() < 0.5 ? 16 : 64;
    out.push(encodeFrame(f));
  }
  return { bytes: out, controls };
}

export const concat = (parts: readonly Uint8Array[]): Uint8Array => {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
};

/** Split bytes at random points into 1..max-byte chunks. */
export function chop(r: Rand, b: Uint8Array, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < b.length; ) {
    const n = 1 + int(r, max);
    out.push(b.subarray(i, i + n));
    i += n;
  }
  return out;
}

export const ascii = (s: string): Uint8Array => new TextEncoder().encode(s);

export function upgradeRequest(path: string, ext?: string): Uint8Array {
  return ascii(
    `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n${ext ? `Sec-WebSocket-Extensions: ${ext}\r\n` : ''}\r\n`,
  );
}
export function upgradeResponse(ext?: string): Uint8Array {
  return ascii(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n${ext ? `Sec-WebSocket-Extensions: ${ext}\r\n` : ''}\r\n`,
  );
}

/** An IPv4 + TCP packet (checksums left zero: readers of captures do not check them). */
export function tcpIpv4(src: string, sport: number, dst: string, dport: number, seq: number, flags: number, payload: Uint8Array): Uint8Array {
  const out = new Uint8Array(40 + payload.length);
  const total = out.length;
  out[0] = 0x45;
  out[2] = total >> 8;
  out[3] = total & 0xff;
  out[6] = 0x40;
  out[8] = 64;
  out[9] = 6;
  out.set(src.split('.').map(Number), 12);
  out.set(dst.split('.').map(Number), 16);
  const dv = new DataView(out.buffer);
  dv.setUint16(20, sport);
  dv.setUint16(22, dport);
  dv.setUint32(24, seq >>> 0);
  out[32] = 5 << 4;
  out[33] = flags;
  dv.setUint16(34, 65535);
  out.set(payload, 40);
  return out;
}

/** A TCP connection as a pcap: handshake, each side's byte stream in segments (interleaved in the given order), FINs. */
export function tcpSessionPcap(
  r: Rand,
  streams: [Uint8Array[], Uint8Array[]],
  opts: { maxSeg?: number; reorder?: number; duplicate?: number; isn?: [number, number] } = {},
): Uint8Array {
  const ep = [
    { a: '10.0.0.2', p: 51000 },
    { a: '10.0.0.1', p: 8080 },
  ] as const;
  const isn = opts.isn ?? [int(r, 2 ** 32), int(r, 2 ** 32)];
  const next = [isn[0]! + 1, isn[1]! + 1];
  const frames: { time: number; data: Uint8Array }[] = [];
  let t = 1700000000;
  const emit = (side: 0 | 1, seq: number, flags: number, payload: Uint8Array) => {
    const s = ep[side];
    const d = ep[side ^ 1]!;
    frames.push({ time: (t += 0.001), data: tcpIpv4(s.a, s.p, d.a, d.p, seq, flags, payload) });
  };
  emit(0, isn[0]!, 0x02, new Uint8Array(0));
  emit(1, isn[1]!, 0x12, new Uint8Array(0));
  emit(0, next[0]!, 0x10, new Uint8Array(0));
  // Segments of each side, then an interleaving that keeps each side's order (before reordering).
  const segs: { side: 0 | 1; seq: number; data: Uint8Array }[][] = [[], []];
  for (const side of [0, 1] as const) {
    for (const msg of streams[side]) {
      for (const piece of chop(r, msg, opts.maxSeg ?? 1400)) {
        segs[side]!.push({ side, seq: next[side]!, data: piece });
        next[side] = (next[side]! + piece.length) >>> 0;
      }
    }
  }
  const order: { side: 0 | 1; seq: number; data: Uint8Array }[] = [];
  const idx = [0, 0];
  while (idx[0]! < segs[0]!.length || idx[1]! < segs[1]!.length) {
    const side = idx[0]! >= segs[0]!.length ? 1 : idx[1]! >= segs[1]!.length ? 0 : r() < 0.5 ? 0 : 1;
    order.push(segs[side]![idx[side]!++]!);
  }
  for (let i = 0; i + 1 < order.length; i++) {
    if (r() < (opts.reorder ?? 0)) [order[i], order[i + 1]] = [order[i + 1]!, order[i]!];
  }
  for (const s of order) {
    emit(s.side, s.seq, 0x18, s.data);
    if (r() < (opts.duplicate ?? 0)) {
      // a retransmission, sometimes overlapping the next bytes only partly
      const k = int(r, s.data.length);
      emit(s.side, (s.seq + k) >>> 0, 0x18, s.data.subarray(k));
    }
  }
  emit(0, next[0]!, 0x11, new Uint8Array(0));
  emit(1, next[1]!, 0x11, new Uint8Array(0));
  return writePcap(frames, LINKTYPE_RAW);
}

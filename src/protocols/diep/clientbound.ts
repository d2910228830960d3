/**
 * Clientbound packets (reference §5, §8): `decodeClientbound` / `encodeClientbound`.
 * 0x00 updates go through the one reader (`update-read.ts`), 0x02 holds an LZ4 block of
 * another packet (its spans carry layer `lz4`), the others are small fixed layouts.
 * Span paths are the paths of the packet's JSON form (`json.ts`).
 */
import {
  ByteReader,
  ByteWriter,
  DecodeError,
  EncodeError,
  atPath,
  LimitError,
  decodeLz4Block,
  encodeLz4Block,
  excerpt,
  rethrowAt,
  type DecodeOptions,
} from '../../core/index.js';
import { readF32, readString, readVi, readVu, writeF32, writeString, writeVi, writeVu, Cur } from './primitives.js';
import type { FieldTable } from './tables/schema.js';
import { FIELDS_6F59094D } from './tables/index.js';
import { DIEP_DEFAULT_LIMITS, resolveDiepLimits, type DiepLimits } from './limits.js';
import type { ClientboundPacket, UpdatePacket } from './types.js';
import { UpdateBuffer, readUpdateAt } from './update-read.js';
import { deletionsOf } from './update-view.js';
import { writeUpdate, type DiepEncodeOptions } from './update-write.js';

export interface DiepDecodeOptions extends DecodeOptions {
  limits?: Partial<DiepLimits>;
  /** Field table of the build (default: 6f59094d). */
  table?: FieldTable;
  /**
   * When given, receives one `[kind, id, hash, start, end]` quintuple per deletion
   * (kind 0) and upcreate (kind 1 update, 2 creation), offsets in the 0x00 packet's buffer.
   */
  ranges?: number[];
}

interface Ctx {
  table: FieldTable;
  limits: Readonly<DiepLimits>;
  spans: DecodeOptions['spans'];
  ranges: number[] | undefined;
}

function ctxOf(opts: DiepDecodeOptions | undefined): Ctx {
  return {
    table: opts?.table ?? FIELDS_6F59094D,
    limits: opts?.limits === undefined ? DIEP_DEFAULT_LIMITS : resolveDiepLimits(opts.limits),
    spans: opts?.spans,
    ranges: opts?.ranges,
  };
}

/**
 * A one-slot pool of reader buffers for the packet-object decoders: a call takes the
 * buffer (or makes one when it is taken, e.g. by a nested call) and gives it back
 * after copying the packet out, so no call ever sees another's data.
 */
class BufferPool {
  private spare: UpdateBuffer | undefined = new UpdateBuffer();
  take(): UpdateBuffer {
    const b = this.spare;
    if (b === undefined) return new UpdateBuffer();
    this.spare = undefined;
    return b;
  }
  give(b: UpdateBuffer): void {
    this.spare = b;
  }
}
const pool = new BufferPool();

/** Decode one clientbound message. */
export function decodeClientbound(bytes: Uint8Array, opts?: DiepDecodeOptions): ClientboundPacket {
  const ctx = ctxOf(opts);
  if (bytes.length > 0 && bytes[0] === 0) {
    const cur = new Cur(bytes, 0, bytes.length);
    try {
      return readUpdate(cur, ctx);
    } catch (e) {
      throw rethrowAt(e, '', cur.pos);
    }
  }
  const r = new ByteReader(bytes, 0, bytes.length, ctx.spans);
  try {
    return decodeClientboundAt(r, ctx, true);
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

/** Decode one clientbound 0x00 update packet (the whole message). */
export function decodeUpdate(bytes: Uint8Array, opts?: DiepDecodeOptions): UpdatePacket {
  const ctx = ctxOf(opts);
  const cur = new Cur(bytes, 0, bytes.length);
  try {
    if (bytes.length === 0) throw new DecodeError(0, 'header', 'header 0x00', 'end of input');
    if (bytes[0] !== 0) throw new DecodeError(0, 'header', 'header 0x00', hex2(bytes[0]!));
    return readUpdate(cur, ctx);
  } catch (e) {
    throw rethrowAt(e, '', cur.pos);
  }
}

/** The 0x00 packet at `cur.pos` (its header byte) to `cur.end`, as packet objects. */
function readUpdate(cur: Cur, ctx: Ctx): UpdatePacket {
  const buf = pool.take();
  try {
    const upcreates = readUpdateAt(cur, buf, ctx.table, ctx.limits, ctx.spans, ctx.ranges, true)!;
    return { type: 'Update', tick: buf.tick, deletions: deletionsOf(buf), upcreates };
  } finally {
    pool.give(buf);
  }
}

function hex2(n: number): string {
  return `0x${n.toString(16).padStart(2, '0')}`;
}

function decodeClientboundAt(r: ByteReader, ctx: Ctx, allowCompressed: boolean): ClientboundPacket {
  const spans = ctx.spans;
  if (r.remaining === 0) r.fail('packet header', 'end of input', 'header');
  const header = r.bytes[r.pos]!;
  if (header === 0) {
    const c = new Cur(r.bytes, r.pos, r.end);
    try {
      return readUpdate(c, ctx);
    } finally {
      r.pos = c.pos;
    }
  }
  r.pos++;
  if (spans !== undefined) spans.add('type', r.pos - 1, r.pos, 'u8');
  const max = ctx.limits.maxStringLength;
  const str = (name: string): string => {
    const s = r.pos;
    try {
      const v = readString(r, max);
      if (spans !== undefined) spans.add(name, s, r.pos, 'stringNT');
      return v;
    } catch (e) {
      throw rethrowAt(e, name, s);
    }
  };
  const field = <T>(name: string, kind: string, fn: (r: ByteReader) => T): T => {
    const s = r.pos;
    try {
      const v = fn(r);
      if (spans !== undefined) spans.add(name, s, r.pos, kind);
      return v;
    } catch (e) {
      throw rethrowAt(e, name, s);
    }
  };
  switch (header) {
    case 0x01: {
      const build = str('build');
      r.expectEnd();
      return { type: 'OutdatedClient', build };
    }
    case 0x02: {
      if (!allowCompressed) throw new DecodeError(r.pos - 1, 'header', 'a packet other than 0x02 inside 0x02', '0x02');
      const size = field('size', 'u32le', (rr) => rr.u32le());
      const maxOut = ctx.limits.maxLz4Output;
      if (size > maxOut) throw new LimitError(r.pos - 4, 'size', 'maxLz4Output', size, maxOut);
      const blockStart = r.pos;
      const block = r.bytesCopy(r.remaining);
      if (spans !== undefined) spans.add('block', blockStart, r.pos, 'lz4');
      let inner: Uint8Array;
      try {
        inner = decodeLz4Block(block, maxOut, size);
      } catch (e) {
        throw rethrowAt(e, 'block', blockStart).shifted(blockStart);
      }
      const ir = new ByteReader(inner, 0, inner.length, spans);
      const prevLayer = spans?.layer;
      if (spans !== undefined) {
        spans.layer = 'lz4';
        spans.push('inner');
      }
      let packet: ClientboundPacket;
      try {
        packet = decodeClientboundAt(ir, ctx, false);
      } catch (e) {
        // Offsets inside `inner` refer to the decompressed buffer (layer 'lz4').
        throw rethrowAt(e, 'inner', ir.pos);
      } finally {
        if (spans !== undefined) {
          spans.pop();
          spans.layer = prevLayer;
        }
      }
      return { type: 'Compressed', size, block, inner: packet };
    }
    case 0x03: {
      const text = str('text');
      const color = field('color', 'u32le', (rr) => rr.u32le());
      const duration = field('duration', 'f32', readF32);
      const identifier = str('identifier');
      r.expectEnd();
      return { type: 'Notification', text, color, duration, identifier };
    }
    case 0x04: {
      const gamemode = str('gamemode');
      const host = str('host');
      if (r.remaining > 0) {
        const region = str('region');
        r.expectEnd();
        return { type: 'ServerInfo', gamemode, host, region };
      }
      return { type: 'ServerInfo', gamemode, host };
    }
    case 0x05:
      r.expectEnd();
      return { type: 'Heartbeat' };
    case 0x07: {
      if (r.remaining > 0) {
        const accessLevel = field('accessLevel', 'vi', readVi);
        r.expectEnd();
        return { type: 'Accept', accessLevel };
      }
      return { type: 'Accept' };
    }
    case 0x0a: {
      const count = field('count', 'vu', readVu);
      r.expectEnd();
      return { type: 'PlayerCount', count };
    }
    default: {
      if (spans !== undefined) spans.add('header', r.pos - 1, r.pos, 'alias');
      const s = r.pos;
      const body = r.bytesCopy(r.remaining);
      if (spans !== undefined) spans.add('body', s, r.pos, 'bytes');
      return { type: 'Unknown', header, body };
    }
  }
}

/** Encode one clientbound packet. */
export function encodeClientbound(p: ClientboundPacket, opts?: DiepEncodeOptions): Uint8Array {
  const w = new ByteWriter(256);
  writeClientbound(w, p, opts?.table ?? FIELDS_6F59094D, true, resolveDiepLimits(opts?.limits));
  return w.finish();
}

/** Packet ids the clientbound decoder reads with a layout of its own (an `Unknown` packet cannot use them). */
const CLIENTBOUND_KNOWN = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x07, 0x0a]);
/** Write a string, errors under `path`. */
export function str(w: ByteWriter, v: string, path: string, max: number): void {
  try {
    writeString(w, v, max);
  } catch (e) {
    throw atPath(e, path);
  }
}

function writeClientbound(w: ByteWriter, p: ClientboundPacket, table: FieldTable, allowCompressed: boolean, limits: Readonly<DiepLimits>): void {
  if (p === null || typeof p !== 'object') throw new EncodeError('', `expected a packet object, got ${excerpt(p)}`);
  const max = limits.maxStringLength;
  switch (p.type) {
    case 'Update':
      writeUpdate(w, p, table, limits);
      return;
    case 'OutdatedClient':
      w.u8(0x01);
      str(w, p.build, 'build', max);
      return;
    case 'Compressed': {
      if (!allowCompressed) throw new EncodeError('inner', 'a 0x02 packet cannot hold another 0x02');
      const inner = new ByteWriter(256);
      try {
        writeClientbound(inner, p.inner, table, false, limits);
      } catch (e) {
        throw atPath(e, 'inner');
      }
      const innerBytes = inner.finish();
      if (innerBytes.length > limits.maxLz4Output) throw new EncodeError('inner', `${innerBytes.length} bytes past maxLz4Output ${limits.maxLz4Output}`);
      let block = p.block;
      // Keep the received block when it still holds the inner packet; compress again otherwise.
      let same = false;
      if (block !== undefined && block.length > 0) {
        try {
          const d = decodeLz4Block(block, Math.max(innerBytes.length, 1), innerBytes.length);
          same = d.length === innerBytes.length && d.every((x, i) => x === innerBytes[i]);
        } catch {
          same = false;
        }
      }
      if (!same) block = encodeLz4Block(innerBytes);
      w.u8(0x02);
      w.u32le(innerBytes.length);
      w.bytes(block);
      return;
    }
    case 'Notification':
      w.u8(0x03);
      str(w, p.text, 'text', max);
      writeVuFixed(w, p.color);
      writeF32(w, p.duration);
      str(w, p.identifier, 'identifier', max);
      return;
    case 'ServerInfo':
      w.u8(0x04);
      str(w, p.gamemode, 'gamemode', max);
      str(w, p.host, 'host', max);
      if (p.region !== undefined) str(w, p.region, 'region', max);
      return;
    case 'Heartbeat':
      w.u8(0x05);
      return;
    case 'Accept':
      w.u8(0x07);
      if (p.accessLevel !== undefined) writeVi(w, p.accessLevel);
      return;
    case 'PlayerCount':
      w.u8(0x0a);
      writeVu(w, p.count);
      return;
    case 'Unknown':
      writeUnknown(w, p.header, p.body, CLIENTBOUND_KNOWN);
      return;
    default:
      throw new EncodeError('type', `unknown clientbound packet type ${excerpt((p as { type: unknown }).type)}`);
  }
}

function writeVuFixed(w: ByteWriter, v: number): void {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 0xffffffff) throw new EncodeError('color', `u32 out of range: ${v}`);
  w.u32le(v);
}

/** An `Unknown` packet: its id (not one with a layout of its own) and body. */
export function writeUnknown(w: ByteWriter, header: number, body: Uint8Array, known: ReadonlySet<number>): void {
  if (!Number.isInteger(header) || header < 0 || header > 255) throw new EncodeError('header', `must be a byte, got ${excerpt(header)}`);
  if (known.has(header))
    throw new EncodeError('header', `0x${header.toString(16).padStart(2, '0')} has a layout of its own: write it as that packet type, not Unknown`);
  if (!(body instanceof Uint8Array)) throw new EncodeError('body', `expected bytes, got ${excerpt(body)}`);
  w.u8(header);
  w.bytes(body);
}

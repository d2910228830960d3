/**
 * Serverbound packets (reference §9): decode and encode. Span paths are the paths of
 * the packet's JSON form (`type`, `flags`, `flagNames[0]`, `mouseX`, `args[1]`).
 */
import { ByteReader, ByteWriter, EncodeError, excerpt, rethrowAt, type DecodeOptions } from '../../core/index.js';
import { str, writeUnknown } from './clientbound.js';
import { readString, readVf, readVi, readVu, writeVf, writeVi, writeVu } from './primitives.js';
import { resolveDiepLimits, type DiepLimits } from './limits.js';
import { INPUT_FLAGS, type ServerboundPacket } from './types.js';

/** Packet ids the serverbound decoder reads with a layout of its own (an `Unknown` packet cannot use them). */
const SERVERBOUND_KNOWN: ReadonlySet<number> = new Set([0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09]);

/** Decode one serverbound message. */
export function decodeServerbound(bytes: Uint8Array, opts?: DecodeOptions & { limits?: Partial<DiepLimits> }): ServerboundPacket {
  const limits = resolveDiepLimits(opts?.limits);
  const spans = opts?.spans;
  const r = new ByteReader(bytes, 0, bytes.length, spans);
  const max = limits.maxStringLength;
  const field = <T>(name: string, kind: string, fn: () => T): T => {
    const s = r.pos;
    try {
      const v = fn();
      if (spans !== undefined) spans.add(name, s, r.pos, kind);
      return v;
    } catch (e) {
      throw rethrowAt(e, name, s);
    }
  };
  try {
    if (r.remaining === 0) r.fail('packet header', 'end of input', 'header');
    const header = r.u8();
    if (spans !== undefined) spans.add('type', 0, 1, 'u8');
    switch (header) {
      case 0x00: {
        const build = field('build', 'stringNT', () => readString(r, max));
        const password = field('password', 'stringNT', () => readString(r, max));
        const p: ServerboundPacket = { type: 'Init', build, password };
        if (r.remaining > 0) p.partyCode = field('partyCode', 'stringNT', () => readString(r, max));
        if (r.remaining > 0) p.playerToken = field('playerToken', 'stringNT', () => readString(r, max));
        if (r.remaining > 0) p.debug = field('debug', 'vu', () => readVu(r));
        r.expectEnd();
        return p;
      }
      case 0x01: {
        const flagsAt = r.pos;
        const flags = field('flags', 'vu', () => readVu(r));
        if (spans !== undefined) {
          // the named flags of the JSON form are read from the same bytes
          let k = 0;
          for (const bit of Object.values(INPUT_FLAGS)) if ((flags & bit) !== 0) spans.add(`flagNames[${k++}]`, flagsAt, r.pos, 'alias');
        }
        const mouseX = field('mouseX', 'vf', () => readVf(r));
        const mouseY = field('mouseY', 'vf', () => readVf(r));
        r.expectEnd();
        return { type: 'Input', flags, mouseX, mouseY };
      }
      case 0x02: {
        const name = field('name', 'stringNT', () => readString(r, max));
        r.expectEnd();
        return { type: 'Spawn', name };
      }
      case 0x03: {
        const rawStat = field('rawStat', 'vi', () => readVi(r));
        if (r.remaining > 0) {
          const limit = field('limit', 'vi', () => readVi(r));
          r.expectEnd();
          return { type: 'StatUpgrade', rawStat, limit };
        }
        return { type: 'StatUpgrade', rawStat };
      }
      case 0x04: {
        const rawTank = field('rawTank', 'vi', () => readVi(r));
        r.expectEnd();
        return { type: 'TankUpgrade', rawTank };
      }
      case 0x05:
        r.expectEnd();
        return { type: 'Heartbeat' };
      case 0x06: {
        const command = field('command', 'stringNT', () => readString(r, max));
        const n = field('args', 'count', () => r.u8());
        const args: string[] = [];
        for (let i = 0; i < n; i++) args.push(field(`args[${i}]`, 'stringNT', () => readString(r, max)));
        r.expectEnd();
        return { type: 'Command', command, args };
      }
      case 0x07:
        r.expectEnd();
        return { type: 'ModifiedClient' };
      case 0x08:
        r.expectEnd();
        return { type: 'LeaveDeathScreen' };
      case 0x09:
        r.expectEnd();
        return { type: 'TakeTank' };
      default: {
        if (spans !== undefined) spans.add('header', 0, 1, 'alias');
        const body = field('body', 'bytes', () => r.bytesCopy(r.remaining));
        return { type: 'Unknown', header, body };
      }
    }
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

/** Encode one serverbound packet. */
export function encodeServerbound(p: ServerboundPacket, opts?: { limits?: Partial<DiepLimits> }): Uint8Array {
  if (p === null || typeof p !== 'object') throw new EncodeError('', `expected a packet object, got ${excerpt(p)}`);
  const max = resolveDiepLimits(opts?.limits).maxStringLength;
  const w = new ByteWriter(64);
  switch (p.type) {
    case 'Init':
      w.u8(0x00);
      str(w, p.build, 'build', max);
      str(w, p.password, 'password', max);
      // each optional field is read only after the ones before it: a later one without them would come back with
      // them made up (''), so it is refused
      if (p.debug !== undefined && p.playerToken === undefined) throw new EncodeError('playerToken', 'missing (debug follows it on the wire)');
      if (p.playerToken !== undefined && p.partyCode === undefined) throw new EncodeError('partyCode', 'missing (playerToken follows it on the wire)');
      if (p.partyCode !== undefined) str(w, p.partyCode, 'partyCode', max);
      if (p.playerToken !== undefined) str(w, p.playerToken, 'playerToken', max);
      if (p.debug !== undefined) writeVu(w, p.debug);
      break;
    case 'Input':
      w.u8(0x01);
      writeVu(w, p.flags);
      writeVf(w, p.mouseX);
      writeVf(w, p.mouseY);
      break;
    case 'Spawn':
      w.u8(0x02);
      str(w, p.name, 'name', max);
      break;
    case 'StatUpgrade':
      w.u8(0x03);
      writeVi(w, p.rawStat);
      if (p.limit !== undefined) writeVi(w, p.limit);
      break;
    case 'TankUpgrade':
      w.u8(0x04);
      writeVi(w, p.rawTank);
      break;
    case 'Heartbeat':
      w.u8(0x05);
      break;
    case 'Command':
      if (!Array.isArray(p.args) || p.args.length > 255) throw new EncodeError('args', 'at most 255 arguments');
      w.u8(0x06);
      str(w, p.command, 'command', max);
      w.u8(p.args.length);
      for (let i = 0; i < p.args.length; i++) str(w, p.args[i]!, `args[${i}]`, max);
      break;
    case 'ModifiedClient':
      w.u8(0x07);
      break;
    case 'LeaveDeathScreen':
      w.u8(0x08);
      break;
    case 'TakeTank':
      w.u8(0x09);
      break;
    case 'Unknown':
      writeUnknown(w, p.header, p.body, SERVERBOUND_KNOWN);
      break;
    default:
      throw new EncodeError('type', `unknown serverbound packet type ${excerpt((p as { type: unknown }).type)}`);
  }
  return w.finish();
}

/** The 32-bit number derived from a build string that masks serverbound stat and tank ids (§9.5). */
export function buildMagic(build: string): number {
  const lanes = [0, 0, 0, 0];
  for (let k = 0; k < build.length; k++) {
    const d = parseInt(build[k]!, 16);
    if (Number.isNaN(d)) throw new EncodeError('build', `not a hex digit: ${build[k]}`);
    const high = Math.floor(k / 4) % 2 === 0;
    lanes[k % 4] = lanes[k % 4]! ^ (high ? d << 4 : d);
  }
  return (lanes[0]! | (lanes[1]! << 8) | (lanes[2]! << 16) | (lanes[3]! << 24)) >>> 0;
}

/**
 * JSON-ready descriptions of the messages in chunks, for captures and logs:
 * the message name, and the fields of the messages involved in joining and
 * acknowledging (others keep their body as hex).
 */
import { DecodeError } from '../../../core/errors.js';
import { toHex } from '../../../core/hex.js';
import { decodeSnapMessage } from '../codec.js';
import type { TwVersion } from '../delta.js';
import { msgIds, msgName, MsgReader, readMsgHeader } from './msg.js';
import type { NetVersion } from './packet.js';

export interface MessageDescription {
  msg: string;
  system: boolean;
  id: number;
  uuid?: string;
  fields?: Record<string, unknown>;
  /** Body after the header, hex, when the fields are not decoded. */
  hex?: string;
  /** The message could not be read. */
  error?: string;
}

/** Describe one message (chunk data). Never throws. */
export function describeMessage(version: NetVersion, codecVersion: TwVersion, data: Uint8Array): MessageDescription {
  const r = new MsgReader(data);
  let d: MessageDescription;
  try {
    const h = readMsgHeader(r);
    d = { msg: msgName(version, h), system: h.system, id: h.id };
    if (h.uuid !== undefined) d.uuid = h.uuid;
  } catch (e) {
    return { msg: '?', system: false, id: -1, error: e instanceof DecodeError ? e.message : String(e), hex: toHex(data) };
  }
  const start = r.pos;
  try {
    const f = fields(version, codecVersion, d, r, data);
    if (f !== undefined) d.fields = f;
    else d.hex = toHex(data.subarray(start));
  } catch (e) {
    d.error = e instanceof DecodeError ? e.message : String(e);
    d.hex = toHex(data.subarray(start));
  }
  return d;
}

function fields(version: NetVersion, codecVersion: TwVersion, d: MessageDescription, r: MsgReader, data: Uint8Array): Record<string, unknown> | undefined {
  const ids = msgIds(version);
  const v7 = version === '0.7';
  if (d.system) {
    switch (d.id) {
      case ids.snap:
      case ids.snapSingle:
      case ids.snapEmpty: {
        const m = decodeSnapMessage(data, codecVersion);
        return { tick: m.tick, deltaTick: m.deltaTick, numParts: m.numParts, part: m.part, crc: m.crc, partSize: m.data.length };
      }
      case ids.info:
        return v7
          ? { version: r.str('version'), password: r.str('password'), clientVersion: r.int('clientVersion') }
          : { version: r.str('version'), password: r.str('password') };
      case ids.mapChange: {
        const o: Record<string, unknown> = { name: r.str('name'), crc: r.int('crc'), size: r.int('size') };
        if (v7) {
          o.chunksPerRequest = r.int('chunksPerRequest');
          o.chunkSize = r.int('chunkSize');
          o.sha256 = toHex(r.raw(32, 'sha256'));
        }
        return o;
      }
      case ids.input: {
        const o: Record<string, unknown> = { ackTick: r.int('ackTick'), intendedTick: r.int('intendedTick') };
        const size = r.int('size');
        o.size = size;
        const n = Math.max(0, Math.min(128, size >> 2));
        const ints: number[] = [];
        for (let i = 0; i < n; i++) ints.push(r.int(`data[${i}]`));
        o.data = ints;
        if (v7 && r.remaining > 0) o.pingCorrection = r.int('pingCorrection');
        return o;
      }
      case ids.inputTiming:
        return { intendedTick: r.int('intendedTick'), timeLeft: r.int('timeLeft') };
      case ids.conReady:
      case ids.ready:
      case ids.enterGame:
        return {};
      default:
        return undefined;
    }
  }
  if (d.id === ids.gameMotd) return { message: r.str('message') };
  if (d.id === ids.gameReadyToEnter) return {};
  if (d.id === ids.gameStartInfo) {
    if (!v7) {
      return {
        name: r.str('name'),
        clan: r.str('clan'),
        country: r.int('country'),
        skin: r.str('skin'),
        useCustomColor: r.int('useCustomColor'),
        colorBody: r.int('colorBody'),
        colorFeet: r.int('colorFeet'),
      };
    }
    const o: Record<string, unknown> = { name: r.str('name'), clan: r.str('clan'), country: r.int('country') };
    const parts: string[] = [];
    for (let i = 0; i < 6; i++) parts.push(r.str(`skinPartNames[${i}]`));
    const custom: number[] = [];
    for (let i = 0; i < 6; i++) custom.push(r.int(`useCustomColors[${i}]`));
    const colors: number[] = [];
    for (let i = 0; i < 6; i++) colors.push(r.int(`skinPartColors[${i}]`));
    o.skinPartNames = parts;
    o.useCustomColors = custom;
    o.skinPartColors = colors;
    return o;
  }
  if (v7 && d.id === ids.gameClientInfo) {
    return { clientId: r.int('clientId'), local: r.int('local'), team: r.int('team'), name: r.str('name'), clan: r.str('clan'), country: r.int('country') };
  }
  return undefined;
}

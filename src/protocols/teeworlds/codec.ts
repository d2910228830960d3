/**
 * Snapshot messages (reference §4, §5, §6.1): SNAP, SNAPSINGLE, SNAPEMPTY,
 * message ids per version, message headers, and slicing of a packed delta.
 */
import { DecodeError, EncodeError } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import type { SpanSink } from '../../core/spans.js';
import type { TwVersion } from './delta.js';
import { Packer, Unpacker } from './packer.js';
import { checkInt32, type VarintMode } from './varint.js';
import type { SnapKind, SnapMessage } from './types.js';
export type { SnapKind, SnapMessage } from './types.js';

/** System message ids (reference §4.2). */
export interface SystemMessageIds {
  EX: number;
  INFO: number;
  MAP_CHANGE: number;
  MAP_DATA: number;
  SERVERINFO: number;
  CON_READY: number;
  SNAP: number;
  SNAPEMPTY: number;
  SNAPSINGLE: number;
  SNAPSMALL: number;
  INPUTTIMING: number;
  RCON_AUTH_STATUS: number;
  RCON_AUTH_ON: number;
  RCON_AUTH_OFF: number;
  RCON_LINE: number;
  RCON_CMD_ADD: number;
  RCON_CMD_REM: number;
  AUTH_CHALLANGE: number;
  AUTH_RESULT: number;
  READY: number;
  ENTERGAME: number;
  INPUT: number;
  RCON_CMD: number;
  RCON_AUTH: number;
  REQUEST_MAP_DATA: number;
  AUTH_START: number;
  AUTH_RESPONSE: number;
  PING: number;
  PING_REPLY: number;
  ERROR: number;
  MAPLIST_ENTRY_ADD: number;
  MAPLIST_ENTRY_REM: number;
}

const SYS_06: SystemMessageIds = {
  EX: 0,
  INFO: 1,
  MAP_CHANGE: 2,
  MAP_DATA: 3,
  SERVERINFO: -1,
  CON_READY: 4,
  SNAP: 5,
  SNAPEMPTY: 6,
  SNAPSINGLE: 7,
  SNAPSMALL: 8,
  INPUTTIMING: 9,
  RCON_AUTH_STATUS: 10,
  RCON_AUTH_ON: -1,
  RCON_AUTH_OFF: -1,
  RCON_LINE: 11,
  RCON_CMD_ADD: 25,
  RCON_CMD_REM: 26,
  AUTH_CHALLANGE: 12,
  AUTH_RESULT: 13,
  READY: 14,
  ENTERGAME: 15,
  INPUT: 16,
  RCON_CMD: 17,
  RCON_AUTH: 18,
  REQUEST_MAP_DATA: 19,
  AUTH_START: 20,
  AUTH_RESPONSE: 21,
  PING: 22,
  PING_REPLY: 23,
  ERROR: 24,
  MAPLIST_ENTRY_ADD: -1,
  MAPLIST_ENTRY_REM: -1,
};
const SYS_07: SystemMessageIds = {
  EX: 0,
  INFO: 1,
  MAP_CHANGE: 2,
  MAP_DATA: 3,
  SERVERINFO: 4,
  CON_READY: 5,
  SNAP: 6,
  SNAPEMPTY: 7,
  SNAPSINGLE: 8,
  SNAPSMALL: 9,
  INPUTTIMING: 10,
  RCON_AUTH_STATUS: -1,
  RCON_AUTH_ON: 11,
  RCON_AUTH_OFF: 12,
  RCON_LINE: 13,
  RCON_CMD_ADD: 14,
  RCON_CMD_REM: 15,
  AUTH_CHALLANGE: 16,
  AUTH_RESULT: 17,
  READY: 18,
  ENTERGAME: 19,
  INPUT: 20,
  RCON_CMD: 21,
  RCON_AUTH: 22,
  REQUEST_MAP_DATA: 23,
  AUTH_START: 24,
  AUTH_RESPONSE: 25,
  PING: 26,
  PING_REPLY: 27,
  ERROR: 28,
  MAPLIST_ENTRY_ADD: 29,
  MAPLIST_ENTRY_REM: 30,
};

/** System message ids by version (−1: not in that version). */
export const SYSTEM_MESSAGE_IDS: Readonly<Record<TwVersion, Readonly<SystemMessageIds>>> = {
  '0.6': Object.freeze(SYS_06),
  ddnet: Object.freeze(SYS_06),
  '0.7': Object.freeze(SYS_07),
};

/** Game message ids needed to join (reference §4.4). */
export const GAME_MESSAGE_IDS: Readonly<
  Record<TwVersion, Readonly<{ SV_MOTD: number; SV_READYTOENTER: number; SV_CLIENTINFO: number; CL_STARTINFO: number }>>
> = {
  '0.6': { SV_MOTD: 1, SV_READYTOENTER: 8, SV_CLIENTINFO: -1, CL_STARTINFO: 20 },
  ddnet: { SV_MOTD: 1, SV_READYTOENTER: 8, SV_CLIENTINFO: -1, CL_STARTINFO: 20 },
  '0.7': { SV_MOTD: 1, SV_READYTOENTER: 8, SV_CLIENTINFO: 18, CL_STARTINFO: 27 },
};

/** Name of system message `id` in `version`, or undefined. */
export function systemMessageName(version: TwVersion, id: number): string | undefined {
  if (id < 0) return undefined;
  const t = SYSTEM_MESSAGE_IDS[version];
  for (const k in t) if (t[k as keyof SystemMessageIds] === id) return k;
  return undefined;
}

/** Most bytes of delta data in one part (`MAX_SNAPSHOT_PACKSIZE`). */
export const MAX_SNAPSHOT_PACKSIZE = 900;
/** Most parts of one snapshot (`CSnapshot::MAX_PARTS`). */
export const MAX_SNAPSHOT_PARTS = 64;

/** The header int of every message: `(id << 1) | system`. */
export interface MessageHeader {
  id: number;
  system: boolean;
  /** DDNet extended message (id 0): the 16-byte UUID that names it, as a canonical string. */
  uuid?: string;
  /** Offset of the message's first field (after the header int and the UUID). */
  bodyStart: number;
}

/** Read a message header (and a DDNet UUID for id 0). */
export function decodeMessageHeader(bytes: Uint8Array, mode: VarintMode = 'ddnet', spans?: SpanSink): MessageHeader {
  const u = new Unpacker(bytes, 0, bytes.length, mode, spans);
  const h = u.int('msgId');
  if (h < 0) throw new DecodeError(0, 'msgId', 'a non-negative message header', `${h}`);
  const out: MessageHeader = { id: h >>> 1, system: (h & 1) === 1, bodyStart: 0 };
  if (out.id === 0) {
    const b = u.raw(16, 'uuid');
    out.uuid = uuidString(b);
  }
  out.bodyStart = u.pos;
  return out;
}

/** Canonical UUID string of 16 bytes. */
export function uuidString(b: Uint8Array): string {
  let s = '';
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
    s += (b[i]! < 16 ? '0' : '') + b[i]!.toString(16);
  }
  return s;
}

export interface SnapDecodeOptions {
  mode?: VarintMode;
  spans?: SpanSink;
  /** Largest part size accepted (default 900). */
  maxPartSize?: number;
  /** Most parts accepted (default 64). */
  maxParts?: number;
}

/**
 * Decode a snapshot message as it sits in a chunk: the header int (system
 * flag set), then the fields of §5. Any other message is a DecodeError.
 * Range checks of §6.2 step 5 are applied; trailing bytes are an error.
 */
export function decodeSnapMessage(bytes: Uint8Array, version: TwVersion, opts: SnapDecodeOptions = {}): SnapMessage {
  const mode = opts.mode ?? 'ddnet';
  const maxPart = opts.maxPartSize ?? MAX_SNAPSHOT_PACKSIZE;
  const maxParts = opts.maxParts ?? MAX_SNAPSHOT_PARTS;
  const u = new Unpacker(bytes, 0, bytes.length, mode, opts.spans);
  const h = u.int('msgId');
  const ids = SYSTEM_MESSAGE_IDS[version];
  const id = h >>> 1;
  let kind: SnapKind;
  if ((h & 1) === 1 && h >= 0 && id === ids.SNAP) kind = 'snap';
  else if ((h & 1) === 1 && h >= 0 && id === ids.SNAPSINGLE) kind = 'snap_single';
  else if ((h & 1) === 1 && h >= 0 && id === ids.SNAPEMPTY) kind = 'snap_empty';
  else {
    const name = h >= 0 && (h & 1) === 1 ? systemMessageName(version, id) : undefined;
    throw new DecodeError(
      0,
      'msgId',
      `a ${version} snapshot message (header ${ids.SNAP * 2 + 1}, ${ids.SNAPSINGLE * 2 + 1} or ${ids.SNAPEMPTY * 2 + 1})`,
      `${h}${name ? ` (${name})` : (h & 1) === 0 ? ' (a game message)' : ''}`,
    );
  }
  const tick = u.int('tick');
  const deltaPos = u.pos;
  const delta = u.int('delta');
  const deltaTick = (tick - delta) | 0;
  let numParts = 1;
  let part = 0;
  let crc = 0;
  let data: Uint8Array | undefined;
  if (kind === 'snap') {
    const np = u.pos;
    numParts = u.int('numParts');
    if (numParts < 1 || numParts > maxParts) throw new DecodeError(np, 'numParts', `1..${maxParts} parts`, `${numParts}`);
    const pp = u.pos;
    part = u.int('part');
    if (part < 0 || part >= numParts) throw new DecodeError(pp, 'part', `a part index in 0..${numParts - 1}`, `${part}`);
  }
  if (kind !== 'snap_empty') {
    crc = u.int('crc');
    const sp = u.pos;
    const size = u.int('partSize');
    if (size < 0 || size > maxPart) throw new DecodeError(sp, 'partSize', `0..${maxPart} bytes`, `${size}`);
    data = u.raw(size, 'data');
  } else data = bytes.subarray(u.pos, u.pos);
  if (u.pos !== bytes.length) throw new DecodeError(u.pos, '', 'end of message', `${bytes.length - u.pos} trailing bytes`);
  if (tick < 0) throw new DecodeError(0, 'tick', 'a non-negative tick', `${tick}`);
  if (deltaTick < -1 || deltaTick > tick) throw new DecodeError(deltaPos, 'delta', `a delta in 0..${tick + 1}`, `${delta}`);
  return { kind, tick, deltaTick, numParts, part, crc, data };
}

/** One packer for every snap message (encoding is synchronous; `finish` copies out). */
const snapPacker = new Packer(2048);

/** A snapshot's tick (an int32, not negative) and its base tick (-1, a full snapshot, up to the tick), or the EncodeError. */
export function checkTicks(tick: unknown, deltaTick: unknown): void {
  const t = checkInt32(tick, 'tick', 0);
  const base = checkInt32(deltaTick, 'deltaTick', -1);
  if (base > t) throw new EncodeError('deltaTick', `expected a base tick from -1 to the tick (${t}), got ${base}`);
}

/**
 * Refuse a SnapMessage the decoder would not read back as it is (EncodeError with the field): a kind of the three;
 * int32 tick (not negative), crc, and a base tick from -1 (a full snapshot) to the tick; `data` a Uint8Array;
 * for `snap`, parts 1 and up and a part index below them; for the others one part, index 0, and for
 * `snap_empty` no data and crc 0. The decoder's part-size and part-count limits are its options, not checked.
 */
function checkSnapMessage(m: SnapMessage): void {
  if (m === null || typeof m !== 'object') throw new EncodeError('', `expected a snapshot message, got ${excerpt(m)}`);
  const kind = m.kind;
  if (kind !== 'snap' && kind !== 'snap_single' && kind !== 'snap_empty')
    throw new EncodeError('kind', `expected 'snap', 'snap_single' or 'snap_empty', got ${excerpt(kind)}`);
  checkTicks(m.tick, m.deltaTick);
  if (!(m.data instanceof Uint8Array)) throw new EncodeError('data', `expected a Uint8Array, got ${excerpt(m.data)}`);
  if (kind === 'snap') {
    const n = checkInt32(m.numParts, 'numParts', 1);
    const part = checkInt32(m.part, 'part', 0);
    if (part >= n) throw new EncodeError('part', `expected a part index below numParts (${n}), got ${part}`);
  } else {
    if (m.numParts !== 1) throw new EncodeError('numParts', `expected 1 for a ${kind}, got ${excerpt(m.numParts)}`);
    if (m.part !== 0) throw new EncodeError('part', `expected 0 for a ${kind}, got ${excerpt(m.part)}`);
  }
  if (kind === 'snap_empty') {
    if (m.crc !== 0) throw new EncodeError('crc', `expected 0 for a snap_empty (it carries no crc), got ${excerpt(m.crc)}`);
    if (m.data.length !== 0) throw new EncodeError('data', `expected no bytes for a snap_empty, got ${m.data.length}`);
  } else checkInt32(m.crc, 'crc', -0x80000000);
}

/** Encode one snapshot message (the fields of a SnapMessage, checked: see checkSnapMessage; `data` is written as is). */
export function encodeSnapMessage(m: SnapMessage, version: TwVersion): Uint8Array {
  checkSnapMessage(m);
  const ids = SYSTEM_MESSAGE_IDS[version];
  if (ids === undefined) throw new EncodeError('version', `expected '0.6' or '0.7', got ${excerpt(version)}`);
  const p = snapPacker.reset();
  const delta = (m.tick - m.deltaTick) | 0;
  if (m.kind === 'snap_empty') {
    p.int((ids.SNAPEMPTY << 1) | 1)
      .int(m.tick)
      .int(delta);
  } else if (m.kind === 'snap_single') {
    p.int((ids.SNAPSINGLE << 1) | 1)
      .int(m.tick)
      .int(delta)
      .int(m.crc)
      .int(m.data.length)
      .raw(m.data);
  } else {
    p.int((ids.SNAP << 1) | 1)
      .int(m.tick)
      .int(delta)
      .int(m.numParts)
      .int(m.part)
      .int(m.crc)
      .int(m.data.length)
      .raw(m.data);
  }
  return p.finish();
}

export interface SliceOptions {
  /** Bytes per part (default 900). */
  partSize?: number;
  /** Most parts (default 64). */
  maxParts?: number;
}

/**
 * Cut a packed delta into the messages the server sends (reference §6.1):
 * SNAPEMPTY for an empty delta, SNAPSINGLE when it fits one part, SNAP parts
 * of exactly `partSize` bytes (the last 1..partSize) otherwise.
 */
export function sliceSnapshot(tick: number, deltaTick: number, crc: number, delta: Uint8Array, opts: SliceOptions = {}): SnapMessage[] {
  const size = opts.partSize ?? MAX_SNAPSHOT_PACKSIZE;
  const maxParts = opts.maxParts ?? MAX_SNAPSHOT_PARTS;
  if (!(size >= 1)) throw new EncodeError('partSize', `must be at least 1, got ${size}`);
  if (delta.length === 0) return [{ kind: 'snap_empty', tick, deltaTick, numParts: 1, part: 0, crc: 0, data: delta }];
  const numParts = Math.ceil(delta.length / size);
  if (numParts > maxParts) throw new EncodeError('', `delta of ${delta.length} bytes needs ${numParts} parts of ${size} bytes; at most ${maxParts} allowed`);
  if (numParts === 1) return [{ kind: 'snap_single', tick, deltaTick, numParts: 1, part: 0, crc, data: delta }];
  const out: SnapMessage[] = [];
  for (let p = 0; p < numParts; p++) {
    out.push({ kind: 'snap', tick, deltaTick, numParts, part: p, crc, data: delta.subarray(p * size, Math.min((p + 1) * size, delta.length)) });
  }
  return out;
}

/** `sliceSnapshot` then `encodeSnapMessage` for each part. */
export function encodeSnapshotMessages(
  version: TwVersion,
  tick: number,
  deltaTick: number,
  crc: number,
  delta: Uint8Array,
  opts: SliceOptions = {},
): Uint8Array[] {
  return sliceSnapshot(tick, deltaTick, crc, delta, opts).map((m) => encodeSnapMessage(m, version));
}

/**
 * Message framing inside chunks (reference §3, §4): the header int
 * `(id << 1) | system`, message fields (CVariableInt ints, NUL-terminated
 * strings, raw bytes), the system / game message ids of 0.6 / DDNet and 0.7,
 * and the few messages the client builds or reads to join a server.
 *
 * The field reader here is a minimal one for control-flow messages; snapshot
 * messages are handed to the snapshot codec.
 */
import { DecodeError } from '../../../core/errors.js';
import type { NetVersion } from './packet.js';

/** Reads message fields from one chunk. Every read is bounded by the chunk. */
export class MsgReader {
  pos: number;
  constructor(
    readonly buf: Uint8Array,
    start = 0,
    readonly end = buf.length,
  ) {
    this.pos = start;
  }

  get remaining(): number {
    return this.end - this.pos;
  }

  /** CVariableInt with DDNet's 5th-byte mask (reference §2.3). */
  int(name = 'int'): number {
    const b = this.buf;
    if (this.pos >= this.end) throw new DecodeError(this.pos, name, 'a varint', 'end of message');
    let c = b[this.pos++]!;
    const neg = (c & 0x40) !== 0;
    let v = c & 0x3f;
    let shift = 6;
    for (let k = 0; k < 4 && c & 0x80; k++) {
      if (this.pos >= this.end) throw new DecodeError(this.pos, name, 'the rest of a varint', 'end of message');
      c = b[this.pos++]!;
      v |= (c & (k === 3 ? 0x0f : 0x7f)) << shift;
      shift += 7;
    }
    return neg ? ~v : v | 0;
  }

  /** NUL-terminated string, raw bytes decoded as UTF-8 (invalid sequences replaced). */
  str(name = 'string'): string {
    const start = this.pos;
    const b = this.buf;
    let p = start;
    while (p < this.end && b[p] !== 0) p++;
    if (p >= this.end) throw new DecodeError(start, name, 'a NUL-terminated string', 'end of message');
    this.pos = p + 1;
    return UTF8.decode(b.subarray(start, p));
  }

  raw(n: number, name = 'raw'): Uint8Array {
    if (n < 0 || n > this.end - this.pos) throw new DecodeError(this.pos, name, `${n} raw bytes`, `${this.end - this.pos}`);
    const v = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return v;
  }

  rest(): Uint8Array {
    const v = this.buf.subarray(this.pos, this.end);
    this.pos = this.end;
    return v;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const UTF8E = new TextEncoder();

/** Builds message bytes. */
export class MsgWriter {
  private buf = new Uint8Array(256);
  private n = 0;

  private ensure(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const nb = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    nb.set(this.buf.subarray(0, this.n));
    this.buf = nb;
  }

  int(v: number): this {
    this.ensure(5);
    let x = v | 0;
    let first = 0;
    if (x < 0) {
      first = 0x40;
      x = ~x;
    }
    first |= x & 0x3f;
    x >>>= 6;
    let cur = first;
    while (x !== 0) {
      this.buf[this.n++] = cur | 0x80;
      cur = x & 0x7f;
      x >>>= 7;
    }
    this.buf[this.n++] = cur;
    return this;
  }

  str(s: string): this {
    const b = UTF8E.encode(s);
    this.ensure(b.length + 1);
    this.buf.set(b, this.n);
    this.n += b.length;
    this.buf[this.n++] = 0;
    return this;
  }

  raw(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
    return this;
  }

  finish(): Uint8Array {
    return this.buf.slice(0, this.n);
  }
}

/** Message header: `{ system, id }` (and the DDNet UUID for id 0). */
export interface MsgHeader {
  system: boolean;
  id: number;
  /** DDNet extended message (id 0): the UUID naming it. */
  uuid?: string;
}

export function readMsgHeader(r: MsgReader): MsgHeader {
  const h = r.int('msgId');
  const m: MsgHeader = { system: (h & 1) !== 0, id: h >> 1 };
  if (m.id === 0) m.uuid = uuidText(r.raw(16, 'uuid'));
  return m;
}

export function msgHeader(w: MsgWriter, system: boolean, id: number): MsgWriter {
  return w.int((id << 1) | (system ? 1 : 0));
}

/** The game message CL_STARTINFO a client sends on CON_READY: 0.6 with a skin name, 0.7 with six skin part names (no custom colours). */
export function startInfoMessage(v: NetVersion, o: { name: string; clan: string; country: number; skin: string; skinParts: readonly string[] }): Uint8Array {
  const w = msgHeader(new MsgWriter(), false, msgIds(v).gameStartInfo).str(o.name).str(o.clan).int(o.country);
  if (v === '0.6') return w.str(o.skin).int(0).int(0).int(0).finish();
  for (let i = 0; i < 6; i++) w.str(o.skinParts[i] ?? '');
  for (let i = 0; i < 12; i++) w.int(0);
  return w.finish();
}

export function uuidText(b: Uint8Array): string {
  let h = '';
  for (let i = 0; i < 16; i++) {
    h += (b[i]! >>> 4).toString(16) + (b[i]! & 15).toString(16);
    if (i === 3 || i === 5 || i === 7 || i === 9) h += '-';
  }
  return h;
}

export function uuidBytes(s: string): Uint8Array {
  const h = s.replace(/-/g, '');
  const out = new Uint8Array(16);
  for (let i = 0; i < 16; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

// ---------------------------------------------------------------------------
// Message ids

/** System message names by id. */
export const SYS_06: readonly string[] = [
  'EX',
  'INFO',
  'MAP_CHANGE',
  'MAP_DATA',
  'CON_READY',
  'SNAP',
  'SNAPEMPTY',
  'SNAPSINGLE',
  'SNAPSMALL',
  'INPUTTIMING',
  'RCON_AUTH_STATUS',
  'RCON_LINE',
  'AUTH_CHALLANGE',
  'AUTH_RESULT',
  'READY',
  'ENTERGAME',
  'INPUT',
  'RCON_CMD',
  'RCON_AUTH',
  'REQUEST_MAP_DATA',
  'AUTH_START',
  'AUTH_RESPONSE',
  'PING',
  'PING_REPLY',
  'ERROR',
  'RCON_CMD_ADD',
  'RCON_CMD_REM',
];
export const SYS_07: readonly string[] = [
  'EX',
  'INFO',
  'MAP_CHANGE',
  'MAP_DATA',
  'SERVERINFO',
  'CON_READY',
  'SNAP',
  'SNAPEMPTY',
  'SNAPSINGLE',
  'SNAPSMALL',
  'INPUTTIMING',
  'RCON_AUTH_ON',
  'RCON_AUTH_OFF',
  'RCON_LINE',
  'RCON_CMD_ADD',
  'RCON_CMD_REM',
  'AUTH_CHALLANGE',
  'AUTH_RESULT',
  'READY',
  'ENTERGAME',
  'INPUT',
  'RCON_CMD',
  'RCON_AUTH',
  'REQUEST_MAP_DATA',
  'AUTH_START',
  'AUTH_RESPONSE',
  'PING',
  'PING_REPLY',
  'ERROR',
  'MAPLIST_ENTRY_ADD',
  'MAPLIST_ENTRY_REM',
];
/** Game message names by id (index 0 = the DDNet extended message). */
export const GAME_06: readonly string[] = [
  'EX',
  'SV_MOTD',
  'SV_BROADCAST',
  'SV_CHAT',
  'SV_KILLMSG',
  'SV_SOUNDGLOBAL',
  'SV_TUNEPARAMS',
  'SV_EXTRAPROJECTILE',
  'SV_READYTOENTER',
  'SV_WEAPONPICKUP',
  'SV_EMOTICON',
  'SV_VOTECLEAROPTIONS',
  'SV_VOTEOPTIONLISTADD',
  'SV_VOTEOPTIONADD',
  'SV_VOTEOPTIONREMOVE',
  'SV_VOTESET',
  'SV_VOTESTATUS',
  'CL_SAY',
  'CL_SETTEAM',
  'CL_SETSPECTATORMODE',
  'CL_STARTINFO',
  'CL_CHANGEINFO',
  'CL_KILL',
  'CL_EMOTICON',
  'CL_VOTE',
  'CL_CALLVOTE',
];
export const GAME_07: readonly string[] = [
  'EX',
  'SV_MOTD',
  'SV_BROADCAST',
  'SV_CHAT',
  'SV_TEAM',
  'SV_KILLMSG',
  'SV_TUNEPARAMS',
  'SV_EXTRAPROJECTILE',
  'SV_READYTOENTER',
  'SV_WEAPONPICKUP',
  'SV_EMOTICON',
  'SV_VOTECLEAROPTIONS',
  'SV_VOTEOPTIONLISTADD',
  'SV_VOTEOPTIONADD',
  'SV_VOTEOPTIONREMOVE',
  'SV_VOTESET',
  'SV_VOTESTATUS',
  'SV_SERVERSETTINGS',
  'SV_CLIENTINFO',
  'SV_GAMEINFO',
  'SV_CLIENTDROP',
  'SV_GAMEMSG',
  'DE_CLIENTENTER',
  'DE_CLIENTLEAVE',
  'CL_SAY',
  'CL_SETTEAM',
  'CL_SETSPECTATORMODE',
  'CL_STARTINFO',
  'CL_KILL',
  'CL_READYCHANGE',
  'CL_EMOTICON',
  'CL_VOTE',
  'CL_CALLVOTE',
  'SV_SKINCHANGE',
  'CL_SKINCHANGE',
  'SV_RACEFINISH',
  'SV_CHECKPOINT',
  'SV_COMMANDINFO',
  'SV_COMMANDINFOREMOVE',
  'CL_COMMAND',
];

/** Known DDNet UUID message names. */
export const DDNET_UUIDS: Readonly<Record<string, string>> = {
  '245e5097-9fe0-39d6-bf7d-9a29e1691e4c': 'what-is@ddnet.tw',
  '6954847e-2e87-3603-b562-36da29ed1aca': 'it-is@ddnet.tw',
  '416911b5-7973-33bf-8d52-7bf01e519cf0': 'i-dont-know@ddnet.tw',
  '12810e1f-a1db-3378-b4fb-164ed6505926': 'rcon-type@ddnet.tw',
  'f9117b3c-8039-3416-9fc0-aef2bcb75c03': 'map-details@ddnet.tw',
  'f621a5a1-f585-3775-8e73-41beee79f2b2': 'capabilities@ddnet.tw',
  '8c001304-8461-3e47-8787-f672b3835bd4': 'clientver@ddnet.tw',
  'bcb43bf5-427c-36d8-b5b8-7975c8c06aa1': 'ping@ddnet.tw',
  'd8295530-14a7-3a0a-b02e-b2cee08d2033': 'pong@ddnet.tw',
};
export const UUID_CLIENTVER = '8c001304-8461-3e47-8787-f672b3835bd4';

/** Ids of the messages the client needs, per version. */
export interface MsgIds {
  info: number;
  mapChange: number;
  conReady: number;
  snap: number;
  snapEmpty: number;
  snapSingle: number;
  inputTiming: number;
  ready: number;
  enterGame: number;
  input: number;
  ping: number;
  pingReply: number;
  gameMotd: number;
  gameReadyToEnter: number;
  gameStartInfo: number;
  /** 0.7 only (-1 in 0.6). */
  gameClientInfo: number;
}

export const IDS_06: MsgIds = {
  info: 1,
  mapChange: 2,
  conReady: 4,
  snap: 5,
  snapEmpty: 6,
  snapSingle: 7,
  inputTiming: 9,
  ready: 14,
  enterGame: 15,
  input: 16,
  ping: 22,
  pingReply: 23,
  gameMotd: 1,
  gameReadyToEnter: 8,
  gameStartInfo: 20,
  gameClientInfo: -1,
};
export const IDS_07: MsgIds = {
  info: 1,
  mapChange: 2,
  conReady: 5,
  snap: 6,
  snapEmpty: 7,
  snapSingle: 8,
  inputTiming: 10,
  ready: 18,
  enterGame: 19,
  input: 20,
  ping: 26,
  pingReply: 27,
  gameMotd: 1,
  gameReadyToEnter: 8,
  gameStartInfo: 27,
  gameClientInfo: 18,
};

export function msgIds(v: NetVersion): MsgIds {
  return v === '0.7' ? IDS_07 : IDS_06;
}

/** Display name of a message. */
export function msgName(v: NetVersion, h: MsgHeader): string {
  if (h.id === 0 && h.uuid !== undefined) return DDNET_UUIDS[h.uuid] ?? `EX(${h.uuid})`;
  const t = h.system ? (v === '0.7' ? SYS_07 : SYS_06) : v === '0.7' ? GAME_07 : GAME_06;
  return t[h.id] ?? `${h.system ? 'SYS' : 'GAME'}_${h.id}`;
}

export const NETVERSION_06 = '0.6 626fce9a778df4d4';
export const NETVERSION_07 = '0.7 802f1be60a05665f';
export const CLIENT_VERSION_07 = 0x0705;
export const DDNET_VERSION = 16040;

/**
 * A Teeworlds / DDNet game client, transport-free (reference §14.9, §15).
 *
 * It performs the handshake (0.6 plain, 0.6 with DDNet's security token, 0.7 tokens), joins the game (INFO, READY,
 * STARTINFO, ENTERGAME, again after a MAP_CHANGE mid-game; the map download is skipped: the servers do not check it),
 * receives snapshots through the snapshot codec and acknowledges them with INPUT so that the server sends deltas.
 *
 * Datagrams go out through `send`; incoming ones are fed to `receive`; `update` drives the timers. Nothing here touches
 * the network, so the same class runs in a browser (with a relay), in tests (with a fake server) and over node:dgram
 * (see `udp.ts`). Bad input never throws out of `receive`: it is reported through the `problem` event, the client carries on.
 */
import { DecodeError } from '../../../core/errors.js';
import {
  controlPayload,
  CTRL_ACCEPT,
  CTRL_CLOSE,
  CTRL_CONNECT,
  CTRL_TOKEN,
  DDNET_TKEN,
  decodeControl,
  decodePacket,
  encodePacket,
  NET_TOKEN_NONE,
  readU32be,
  writeU32be,
  type NetChunk,
  type NetPacket,
  type NetVersion,
} from './packet.js';
import { NetConn } from './conn.js';
import {
  CLIENT_VERSION_07,
  DDNET_VERSION,
  msgHeader,
  msgIds,
  msgName,
  MsgReader,
  MsgWriter,
  NETVERSION_06,
  NETVERSION_07,
  readMsgHeader,
  startInfoMessage,
  UUID_CLIENTVER,
  uuidBytes,
  type MsgIds,
} from './msg.js';
import { SnapshotReceiver, type ReceiveResult } from '../session.js';
import type { Snapshot } from '../snapshot.js';
import type { SnapKind } from '../codec.js';
import type { TwVersion } from '../delta.js';
import { WorldMirror } from './world.js';
import { sanitizeCloseReason, sanitizePlayerString } from '../strings.js';

/** A snapshot the client completed (or rebuilt with a wrong CRC: `crcOk` false, not stored). */
export interface ReceivedSnapshot {
  kind: SnapKind;
  tick: number;
  /** Absolute base tick (-1 = full snapshot). */
  deltaTick: number;
  /** CRC from the message (0 for SNAPEMPTY, which has none). */
  crc: number;
  /** The CRC of the rebuilt snapshot matches (always true for SNAPEMPTY). */
  crcOk: boolean;
  numParts: number;
  /** Bytes of the packed delta (all parts). */
  deltaSize: number;
  snapshot: Snapshot;
  /** Codec version the snapshot was decoded with. */
  codecVersion: TwVersion;
}

/** 0.7 game message SV_CLIENTDROP (int client_id, str reason, int silent). */
const GAME_CLIENTDROP_07 = 20;

export type ClientState = 'offline' | 'token' | 'connecting' | 'loading' | 'ready' | 'ingame' | 'closed';

export interface ClientOptions {
  version: NetVersion;
  /** 0.6: use DDNet's security-token handshake (default true). */
  ddnetToken?: boolean;
  /** 0.6: send DDNet's CLIENTVER before INFO (default: same as `ddnetToken`). */
  clientVer?: boolean;
  name?: string;
  clan?: string;
  /** 0.6 skin name (default "default"). */
  skin?: string;
  /** 0.7 skin part names: body, marking, decoration, hands, feet, eyes (default "standard", "", "", "standard", "standard", "standard"). */
  skinParts?: readonly string[];
  country?: number;
  password?: string;
  /** Peer time-out in ms (default 10000). */
  timeoutMs?: number;
  /** Random bytes (tokens, the connection UUID); defaults to crypto.getRandomValues. */
  random?: (n: number) => Uint8Array;
  /** How often to send INPUT while in game, ms (default 20 = every server tick; also after each datagram with snapshot messages). */
  inputIntervalMs?: number;
}

/** A message of the game or engine that the client does not handle itself. */
export interface ClientMessage {
  name: string;
  system: boolean;
  id: number;
  /** Bytes of the message after its header. */
  body: Uint8Array;
}

/** Something went wrong but the client carries on. */
export interface ClientProblem {
  what: string;
  error?: DecodeError;
}

/** A player as announced by 0.7's SV_CLIENTINFO (name, clan as the 0.7 client keeps them: control characters as spaces, 15 / 11 bytes). */
export interface ClientInfo07 {
  clientId: number;
  local: boolean;
  team: number;
  name: string;
  clan: string;
  country: number;
}

export interface ClientEvents {
  snapshot: ReceivedSnapshot;
  message: ClientMessage;
  problem: ClientProblem;
  state: ClientState;
  close: string;
  /** Every datagram in and out (for captures). */
  datagram: { direction: 'in' | 'out'; bytes: Uint8Array };
  /** 0.7: SV_CLIENTINFO. */
  clientInfo: ClientInfo07;
}

type Listener<T> = (v: T) => void;

function defaultRandom(n: number): Uint8Array {
  const b = new Uint8Array(n);
  globalThis.crypto.getRandomValues(b);
  return b;
}

export class TeeworldsClient {
  readonly version: NetVersion;
  readonly opts: Required<Omit<ClientOptions, 'random' | 'password'>> & { password: string };
  private readonly random: (n: number) => Uint8Array;
  private readonly send: (bytes: Uint8Array) => void;
  readonly conn: NetConn;
  readonly ids: MsgIds;
  readonly snapshots: SnapshotReceiver;
  readonly codecVersion: TwVersion;
  /** The world as of the newest stored snapshot. */
  readonly world: WorldMirror;
  state: ClientState = 'offline';
  /** 0.7: our token (the one the server puts in headers); 0.6: undefined. */
  readonly ownToken: number | undefined;
  private listeners: { [K in keyof ClientEvents]?: Listener<ClientEvents[K]>[] } = {};
  private lastHandshake = -Infinity;
  private lastInput = -Infinity;
  /** A snapshot message asked for an INPUT: sent once the datagram it came in is processed. */
  private inputDue = false;
  private handshakeStart = 0;
  /** When the last snapshot completed, and how many snapshot messages were ignored since. */
  private lastSnapAt = 0;
  private ignoredSnaps = 0;
  /** 0.6: ACCEPT sent, no data from the server yet. */
  private acceptPending = false;
  private lastAccept = 0;
  /** Map name from MAP_CHANGE. */
  map: string | undefined;
  /** 0.7 players by client id (from SV_CLIENTINFO). */
  readonly clientInfos = new Map<number, ClientInfo07>();
  /** Our client id, when the server tells (0.7 SV_CLIENTINFO with local set). */
  localClientId = -1;
  /** Counters. */
  stats = { datagramsIn: 0, datagramsOut: 0, badDatagrams: 0, wrongToken: 0 };

  constructor(options: ClientOptions, send: (bytes: Uint8Array) => void) {
    this.version = options.version;
    const ddnetToken = options.ddnetToken ?? true;
    this.opts = {
      version: options.version,
      ddnetToken,
      clientVer: options.clientVer ?? ddnetToken,
      name: options.name ?? 'tickwire',
      clan: options.clan ?? '',
      skin: options.skin ?? 'default',
      skinParts: options.skinParts ?? ['standard', '', '', 'standard', 'standard', 'standard'],
      country: options.country ?? -1,
      password: options.password ?? '',
      timeoutMs: options.timeoutMs ?? 10000,
      inputIntervalMs: options.inputIntervalMs ?? 20,
    };
    this.random = options.random ?? defaultRandom;
    this.send = (b) => {
      this.stats.datagramsOut++;
      this.fire('datagram', { direction: 'out', bytes: b });
      send(b);
    };
    this.conn = new NetConn({ version: this.version, send: this.send, timeoutMs: this.opts.timeoutMs });
    this.ids = msgIds(this.version);
    this.codecVersion = this.version === '0.7' ? '0.7' : ddnetToken ? 'ddnet' : '0.6';
    this.snapshots = new SnapshotReceiver(this.codecVersion);
    this.world = new WorldMirror(this.codecVersion);
    if (this.version === '0.7') {
      let t = readU32be(this.random(4), 0);
      if (t === NET_TOKEN_NONE) t = 1;
      this.ownToken = t;
    }
  }

  on<K extends keyof ClientEvents>(event: K, fn: Listener<ClientEvents[K]>): this {
    ((this.listeners[event] ??= []) as Listener<ClientEvents[K]>[]).push(fn);
    return this;
  }

  private fire<K extends keyof ClientEvents>(event: K, v: ClientEvents[K]): void {
    const ls = this.listeners[event] as Listener<ClientEvents[K]>[] | undefined;
    if (ls) for (const l of ls) l(v);
  }

  private setState(s: ClientState): void {
    if (this.state === s) return;
    this.state = s;
    this.fire('state', s);
  }

  private problem(what: string, error?: unknown): void {
    const p: ClientProblem = { what };
    if (error instanceof DecodeError) p.error = error;
    else if (error !== undefined) p.what += `: ${error instanceof Error ? error.message : String(error)}`;
    this.fire('problem', p);
  }

  // -------------------------------------------------------------------------
  // Handshake

  /** Begin connecting. */
  start(now: number): void {
    this.conn.reset(now);
    this.handshakeStart = now;
    this.setState(this.version === '0.7' ? 'token' : 'connecting');
    this.sendHandshake(now);
  }

  private sendHandshake(now: number): void {
    this.lastHandshake = now;
    if (this.version === '0.7') {
      const extra = new Uint8Array(512);
      writeU32be(extra, 0, this.ownToken!);
      const id = this.state === 'token' ? CTRL_TOKEN : CTRL_CONNECT;
      // TOKEN requests go out with "no token"; CONNECT with the server's token.
      this.conn.peerToken = this.state === 'token' ? NET_TOKEN_NONE : this.conn.peerToken;
      // Payload: id + own token + 508 zeros (513 bytes).
      this.conn.sendControl(id, extra.subarray(0, 512), now);
    } else if (this.opts.ddnetToken) {
      const pk: NetPacket = {
        connless: false,
        control: true,
        resend: false,
        compression: false,
        ack: 0,
        numChunks: 0,
        payload: controlPayload(CTRL_CONNECT, DDNET_TKEN),
        securityToken: NET_TOKEN_NONE,
      };
      this.send(encodePacket(pk, { version: '0.6', securityToken: true }));
    } else {
      this.conn.sendControl(CTRL_CONNECT, undefined, now);
    }
  }

  /** Leave: send CLOSE and stop. */
  disconnect(reason: string, now: number): void {
    if (this.state === 'closed' || this.state === 'offline') return;
    const r = new TextEncoder().encode(reason);
    const extra = new Uint8Array(r.length + 1);
    extra.set(r);
    try {
      this.conn.flush(now);
      this.conn.sendControl(CTRL_CLOSE, extra, now);
    } finally {
      this.close(reason);
    }
  }

  private close(reason: string): void {
    if (this.state === 'closed') return;
    this.setState('closed');
    this.fire('close', reason);
  }

  // -------------------------------------------------------------------------
  // Receiving

  /** Feed one datagram from the server. Never throws. */
  receive(bytes: Uint8Array, now: number): void {
    this.stats.datagramsIn++;
    this.fire('datagram', { direction: 'in', bytes });
    if (this.state === 'closed' || this.state === 'offline') return;
    try {
      this.receivePacket(bytes, now);
    } catch (e) {
      this.stats.badDatagrams++;
      this.problem('bad datagram', e);
    }
  }

  private receivePacket(bytes: Uint8Array, now: number): void {
    const secTok = this.version === '0.6' && this.opts.ddnetToken && this.conn.securityToken !== undefined;
    const pk = decodePacket(bytes, { version: this.version, securityToken: secTok });
    if (pk.connless) {
      this.problem('connectionless packet ignored');
      return;
    }
    if (this.version === '0.7' && pk.token !== this.ownToken) {
      this.stats.wrongToken++;
      this.problem(`packet with wrong token ${pk.token?.toString(16)} dropped`);
      return;
    }
    if (secTok && pk.securityToken !== this.conn.securityToken) {
      this.stats.wrongToken++;
      this.problem(`packet with wrong security token dropped`);
      return;
    }
    if (pk.control) {
      this.onControl(pk, now);
      return;
    }
    if (this.state === 'token' || this.state === 'connecting') {
      // Data before the handshake finished: 0.6 servers without a token may start right away.
      if (this.version === '0.6' && !this.opts.ddnetToken && this.state === 'connecting') this.onConnected(now);
      else return;
    }
    this.acceptPending = false;
    let chunks: NetChunk[];
    try {
      chunks = this.conn.receive(pk, now);
    } catch (e) {
      this.problem('bad chunks', e);
      return;
    }
    for (const c of chunks) {
      // a listener that disconnected ends the datagram: no more events, nothing sent after our CLOSE
      if (this.state === 'closed') return;
      try {
        this.onChunk(c, now);
      } catch (e) {
        this.problem('bad message', e);
      }
    }
    // One INPUT and one flush per datagram, however many snapshot messages and PINGs it held (not one datagram each).
    if (this.inputDue) this.sendInput(now);
    if (this.state !== 'closed') this.conn.flush(now);
  }

  private onControl(pk: NetPacket, now: number): void {
    const m = decodeControl(pk.payload, this.version);
    this.conn.touch(now);
    switch (m.type) {
      case 'keepalive':
        return;
      case 'close': {
        // kept as the games keep it (127 bytes, control characters as spaces): it reaches callbacks, logs, terminals
        const reason = sanitizeCloseReason(m.reason ?? '');
        this.close(`server closed the connection${reason ? `: ${reason}` : ''}`);
        return;
      }
      case 'token':
        if (this.version === '0.7' && this.state === 'token' && m.token !== undefined) {
          this.conn.peerToken = m.token;
          this.setState('connecting');
          this.sendHandshake(now);
        }
        return;
      case 'connectaccept':
        if (this.state !== 'connecting') return;
        if (this.version === '0.6' && this.opts.ddnetToken) {
          // CONNECTACCEPT + "TKEN" + token: the decoder did not strip a token yet (we had none).
          const x = m.extra;
          if (x.length >= 8 && m.ddnetToken) {
            this.conn.securityToken = readU32be(x, x.length - 4);
          } else {
            // A server without DDNet's token (vanilla 0.6): carry on with the plain handshake.
            this.problem('CONNECTACCEPT without a DDNet token: continuing without one');
            this.opts.ddnetToken = false;
          }
          this.conn.sendControl(CTRL_ACCEPT, undefined, now);
        } else if (this.version === '0.6') {
          this.conn.sendControl(CTRL_ACCEPT, undefined, now);
        }
        if (this.version === '0.6') {
          this.acceptPending = true;
          this.lastAccept = now;
        }
        this.onConnected(now);
        return;
      default:
        this.problem(`unexpected control message ${m.type} (${m.id})`);
    }
  }

  private onConnected(now: number): void {
    this.setState('loading');
    this.conn.lastRecv = now;
    if (this.version === '0.6' && this.opts.clientVer) {
      const w = msgHeader(new MsgWriter(), true, 0).raw(uuidBytes(UUID_CLIENTVER)).raw(this.random(16)).int(DDNET_VERSION).str('DDNet 16.4');
      this.conn.queue(w.finish(), true, now);
    }
    const w = msgHeader(new MsgWriter(), true, this.ids.info);
    if (this.version === '0.7') w.str(NETVERSION_07).str(this.opts.password).int(CLIENT_VERSION_07);
    else w.str(NETVERSION_06).str(this.opts.password);
    this.conn.queue(w.finish(), true, now);
    this.conn.flush(now);
  }

  private onChunk(c: NetChunk, now: number): void {
    const r = new MsgReader(c.data);
    const h = readMsgHeader(r);
    const ids = this.ids;
    if (h.system) {
      if (h.id === ids.snap || h.id === ids.snapSingle || h.id === ids.snapEmpty) {
        if (this.state !== 'ingame' && this.state !== 'ready') return;
        this.onSnap(c.data, now);
        return;
      }
      if (h.id === ids.ping) {
        // Latency probe: answered (non-vital, as the games do) in the datagram that ends `receivePacket`.
        this.conn.queue(msgHeader(new MsgWriter(), true, ids.pingReply).finish(), false, now);
        return;
      }
      if (h.id === ids.mapChange) {
        this.map = r.str('mapName');
        if (this.state === 'ready' || this.state === 'ingame') {
          // A new map mid-game: the server waits for READY again and its ticks start over; the old snapshots are stale.
          this.snapshots.reset();
          this.clientInfos.clear();
          this.localClientId = -1;
          this.setState('loading');
        }
        if (this.state === 'loading') {
          this.conn.queue(msgHeader(new MsgWriter(), true, ids.ready).finish(), true, now);
          this.conn.flush(now);
        }
        return;
      }
      if (h.id === ids.conReady) {
        // (only while loading: a server that repeats it gets one STARTINFO, not one per CON_READY)
        if (this.state !== 'loading') return;
        this.conn.queue(startInfoMessage(this.version, this.opts), true, now);
        this.conn.flush(now);
        this.setState('ready');
        return;
      }
    } else {
      if (h.id === ids.gameReadyToEnter) {
        if (this.state !== 'ready') return;
        this.conn.queue(msgHeader(new MsgWriter(), true, ids.enterGame).finish(), true, now);
        this.conn.flush(now);
        this.lastSnapAt = now;
        this.setState('ingame');
        return;
      }
      if (h.id === ids.gameClientInfo && this.version === '0.7') {
        const ci: ClientInfo07 = {
          clientId: r.int('clientId'),
          local: r.int('local') !== 0,
          team: r.int('team'),
          name: sanitizePlayerString(r.str('name'), 16),
          clan: sanitizePlayerString(r.str('clan'), 12),
          country: r.int('country'),
        };
        if (ci.clientId < 0 || ci.clientId > 1023) {
          this.problem(`SV_CLIENTINFO for client id ${ci.clientId} ignored`);
          return;
        }
        if (ci.local) this.localClientId = ci.clientId;
        this.clientInfos.set(ci.clientId, ci);
        this.fire('clientInfo', ci);
      } else if (this.version === '0.7' && h.id === GAME_CLIENTDROP_07) {
        this.clientInfos.delete(r.int('clientId'));
      }
    }
    this.fire('message', { name: msgName(this.version, h), system: h.system, id: h.id, body: c.data.subarray(r.pos) });
  }

  private onSnap(data: Uint8Array, now: number): void {
    let r: ReceiveResult;
    try {
      r = this.snapshots.receiveBytes(data);
    } catch (e) {
      this.problem('bad snapshot message', e);
      return;
    }
    const m = r.message;
    switch (r.status) {
      case 'partial':
        return;
      case 'ignored':
        // A corrupt or hostile snapshot message with a tick from the future makes every real one look old. If snapshots
        // keep coming but none completes for a second, start over: forget them and acknowledge -1 (a full one follows).
        this.ignoredSnaps++;
        if (this.ignoredSnaps >= 10 && now - this.lastSnapAt > 1000) {
          this.problem(
            `no snapshot completed for ${Math.round(now - this.lastSnapAt)} ms while ${this.ignoredSnaps} were ignored: resetting the snapshot state`,
          );
          this.snapshots.reset();
          this.ignoredSnaps = 0;
          this.lastSnapAt = now;
          this.inputDue = true;
        }
        return;
      case 'missing-base':
        this.problem(`snapshot ${m.tick}: base snapshot ${m.deltaTick} is not stored; asking for a full snapshot`);
        this.inputDue = true;
        return;
      case 'bad-delta':
        this.problem(`snapshot ${m.tick}: bad delta`, r.error);
        return;
      case 'crc-error':
      case 'complete': {
        const snap: ReceivedSnapshot = {
          kind: m.kind,
          tick: m.tick,
          deltaTick: m.deltaTick,
          crc: m.crc,
          crcOk: r.status === 'complete',
          numParts: m.numParts,
          deltaSize: r.delta?.length ?? 0,
          snapshot: r.snapshot!,
          codecVersion: this.codecVersion,
        };
        if (r.status === 'complete') {
          this.world.update(m.tick, r.snapshot!, this.clientInfos);
          this.lastSnapAt = now;
          this.ignoredSnaps = 0;
        }
        if (r.status === 'crc-error') this.problem(`snapshot ${m.tick}: CRC mismatch (message ${m.crc}, rebuilt ${r.crc}); dropped`);
        this.inputDue = true;
        this.fire('snapshot', snap);
        return;
      }
    }
  }

  /** Send a message (its header int included, e.g. built with `MsgWriter` and `msgHeader`) once in game or loading; flushed at once. */
  sendMessage(message: Uint8Array, vital: boolean, now: number): void {
    if (this.state === 'closed' || this.state === 'offline' || this.state === 'token' || this.state === 'connecting') return;
    this.conn.queue(message, vital, now);
    this.conn.flush(now);
  }

  /** Send INPUT with the acknowledged tick (non-vital, flushed at once). */
  sendInput(now: number): void {
    this.inputDue = false;
    if (this.state !== 'ingame') return;
    this.lastInput = now;
    const ack = this.snapshots.ackTick;
    // Intended tick: the server's tick as estimated from the newest snapshot (50 ticks/s), plus one.
    const cur = this.snapshots.currentTick;
    const intended = cur < 0 ? 0 : cur + 1 + Math.max(0, Math.floor((now - this.lastSnapAt) / 20));
    const w = msgHeader(new MsgWriter(), true, this.ids.input).int(ack).int(intended).int(40);
    for (let i = 0; i < 10; i++) w.int(0);
    if (this.version === '0.7') w.int(0);
    this.conn.queue(w.finish(), false, now);
    this.conn.flush(now);
  }

  // -------------------------------------------------------------------------
  // Timers

  /** Drive re-sends, keep-alives, handshake retries and INPUT. Call every ~20-50 ms. Never throws. */
  update(now: number): void {
    if (this.state === 'closed' || this.state === 'offline') return;
    try {
      if (this.state === 'token' || this.state === 'connecting') {
        if (now - this.handshakeStart > this.opts.timeoutMs) {
          this.close('connection timed out during the handshake');
          return;
        }
        if (now - this.lastHandshake >= 500) this.sendHandshake(now);
        return;
      }
      if (this.state === 'ingame' && now - this.lastInput >= this.opts.inputIntervalMs) this.sendInput(now);
      // 0.6: ACCEPT is not re-sent by the reliability layer; repeat it while no data has arrived.
      if (this.acceptPending && now - this.lastAccept >= 1000) {
        this.lastAccept = now;
        this.conn.sendControl(CTRL_ACCEPT, undefined, now);
      }
      const u = this.conn.update(now);
      if (u === 'timeout') this.close('connection timed out');
      else if (u === 'overflow') this.close('too weak connection (out of buffer)');
    } catch (e) {
      this.problem('timer', e);
    }
  }
}

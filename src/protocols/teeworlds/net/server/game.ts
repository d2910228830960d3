/**
 * `TeeworldsGameServer`: the game flow a real Teeworlds / DDNet client expects
 * (reference §15, seen from the server), on top of `TeeworldsNetServer`:
 *
 *   INFO → MAP_CHANGE (name, CRC, size; 0.7 also chunk layout and SHA-256)
 *   REQUEST_MAP_DATA → MAP_DATA (only a client without the map asks)
 *   READY → MOTD, CON_READY
 *   CL_STARTINFO → SV_READYTOENTER
 *   ENTERGAME → (0.7: SV_CLIENTINFO, SV_GAMEINFO) then snapshots
 *   INPUT → the tee's input, the acknowledged tick (SnapshotProducer.onInput), INPUTTIMING
 *
 * A player in game that acknowledges no new snapshot for `snapAckTimeoutMs`
 * (10 s, counted from entering) is dropped: a plain 0.6 peer at a spoofed
 * address can enter blind, but cannot have snapshots streamed to its victim.
 *
 * Snapshots come from `SnapshotProducer` (INIT / FULL / RECOVER rates and
 * per-client baselines by acknowledged tick). Per client it counts what was sent
 * (full / delta / empty, parts) and what the client acknowledged.
 *
 * Transport-free and clocked from outside: `receive`, `update(now)`.
 */
import { SnapshotProducer, type ProducerOptions } from '../../producer.js';
import type { TwVersion } from '../../delta.js';
import { msgHeader, msgIds, MsgReader, MsgWriter, NETVERSION_06, NETVERSION_07, readMsgHeader, type MsgIds } from '../msg.js';
import type { NetChunk, NetVersion } from '../packet.js';
import { TeeworldsNetServer, type NetSlot, type Peer } from './netserver.js';
import type { ServerMap } from './map.js';
import { sanitizeCloseReason, sanitizePlayerString } from '../../strings.js';
import { CLAN_SIZE, IDLE_INPUT, NAME_SIZE, SKIN_SIZE, TICKS_PER_SECOND, World, type TeeInput, type WorldOptions } from './world.js';

export type ServeVersion = '0.6' | '0.7' | 'ddnet';

export type PlayerState = 'connecting' | 'map' | 'ready' | 'info' | 'ingame';

export interface SnapCounts {
  /** Snapshots sent, by kind. */
  full: number;
  delta: number;
  empty: number;
  /** SNAP / SNAPSINGLE messages (parts) sent. */
  parts: number;
  /** Snapshots that needed more than one part (full / delta). */
  multiPartFull: number;
  multiPartDelta: number;
  /** INPUT messages and the ticks they acknowledged. */
  inputs: number;
  firstAck: number;
  lastAck: number;
  /** Distinct acknowledged ticks that were sent as a delta / as a full snapshot / in several parts. */
  ackedDelta: number;
  ackedFull: number;
  ackedMultiPart: number;
  ackedMultiPartDelta: number;
  /** Acknowledgements that went back in time (a client that started over). */
  ackRegressions: number;
  /** Map data chunks sent. */
  mapChunks: number;
}

export interface Player {
  slot: NetSlot;
  cid: number;
  state: PlayerState;
  name: string;
  clan: string;
  country: number;
  skin: string;
  skinParts: string[];
  /** DDNet: CLIENTVER seen. */
  ddnetVersion: number;
  /** 0.7: next map chunk to send. */
  mapChunk: number;
  lastIntended: number;
  counts: SnapCounts;
  /** Sent snapshots by tick (bounded): how each went out. */
  sent: Map<number, { deltaTick: number; parts: number }>;
  ackedTicks: Set<number>;
  /** The newest tick of ours the client acknowledged (-1: none yet), and when (ms; entering the game counts). */
  bestAck: number;
  lastSnapAckAt: number;
}

export interface GameServerOptions {
  version: ServeVersion;
  map: ServerMap;
  maxClients?: number;
  send: (bytes: Uint8Array, to: Peer) => void;
  world?: WorldOptions;
  producer?: ProducerOptions;
  timeoutMs?: number;
  /** Most unacknowledged vital chunks per client before it is dropped (default 600). */
  maxUnacked?: number;
  /** Message of the day. */
  motd?: string;
  /** Called for log events (connect, enter, drop, map download). */
  log?: (event: Record<string, unknown>) => void;
  /** Clients that do not enter the game within this many ms are dropped (default 60000: map downloads). */
  joinTimeoutMs?: number;
  /**
   * Players in game that acknowledge no new snapshot (a tick we sent, in INPUT) for this many ms, counted from
   * entering the game, are dropped (default 10000). Real clients acknowledge many times per second; a peer that
   * never sees our packets (plain 0.6 from a spoofed address) cannot, and would otherwise have us stream snapshots
   * to its victim for as long as it sends a 4-byte packet every few seconds.
   */
  snapAckTimeoutMs?: number;
}

/** 0.7 game message ids the server sends. */
const G07 = { serverSettings: 17, clientInfo: 18, gameInfo: 19, clientDrop: 20, chat: 3 };
const G06 = { chat: 3 };
/** Map chunk sizes: 0.7 announces its own; 0.6 chunks must fit the 10-bit chunk size. */
const MAP_CHUNK_07 = 1024;
const MAP_CHUNKS_PER_REQUEST_07 = 8;
const MAP_CHUNK_06 = 900;
/** Sent-snapshot bookkeeping per client (ticks). */
const SENT_HISTORY = 300;

export class TeeworldsGameServer {
  readonly version: ServeVersion;
  readonly netVersion: NetVersion;
  readonly codec: TwVersion;
  readonly ids: MsgIds;
  readonly net: TeeworldsNetServer;
  readonly world: World;
  readonly producer: SnapshotProducer;
  readonly map: ServerMap;
  readonly maxClients: number;
  readonly players = new Map<number, Player>();
  /** Players that left, with their final counts (bounded). */
  readonly departed: { name: string; cid: number; counts: SnapCounts; reason: string }[] = [];
  private readonly motd: string;
  private readonly log: (event: Record<string, unknown>) => void;
  private readonly joinTimeoutMs: number;
  private readonly snapAckTimeoutMs: number;
  private startMs: number | undefined;
  tick = 0;

  constructor(opts: GameServerOptions) {
    this.version = opts.version;
    this.netVersion = opts.version === '0.7' ? '0.7' : '0.6';
    this.codec = opts.version;
    this.ids = msgIds(this.netVersion);
    this.map = opts.map;
    const limit = opts.version === '0.6' ? 16 : 64;
    const bots = Math.max(0, opts.world?.bots ?? 6);
    this.maxClients = Math.max(1, Math.min(opts.maxClients ?? 8, limit - bots));
    this.net = new TeeworldsNetServer({
      version: this.netVersion,
      maxClients: this.maxClients,
      send: opts.send,
      ddnetToken: opts.version !== '0.7',
      timeoutMs: opts.timeoutMs,
      maxUnacked: opts.maxUnacked,
    });
    this.net.handler = {
      connect: (slot, now) => this.onConnect(slot, now),
      chunks: (slot, chunks, now) => this.onChunks(slot, chunks, now),
      drop: (slot, reason, _byPeer, now) => this.onDrop(slot, reason, now),
    };
    this.world = new World(opts.map, { ...opts.world, bots, firstBotId: opts.world?.firstBotId ?? this.maxClients });
    this.producer = new SnapshotProducer(this.codec, opts.producer);
    this.motd = opts.motd ?? 'tickwire serve';
    this.log = opts.log ?? (() => {});
    this.joinTimeoutMs = opts.joinTimeoutMs ?? 60000;
    this.snapAckTimeoutMs = opts.snapAckTimeoutMs ?? 10000;
  }

  receive(bytes: Uint8Array, from: Peer, now: number): void {
    this.net.receive(bytes, from, now);
  }

  /** Advance the world to the tick `now` calls for (50 per second) and send what is due. */
  update(now: number): void {
    if (this.startMs === undefined) this.startMs = now;
    const want = Math.floor((now - this.startMs) / (1000 / TICKS_PER_SECOND));
    // Catch up at most a second at a time (a stalled process does not replay minutes).
    let steps = Math.min(want - this.tick, TICKS_PER_SECOND);
    if (want - this.tick > TICKS_PER_SECOND) this.startMs = now - this.tick * (1000 / TICKS_PER_SECOND);
    while (steps-- > 0) {
      this.tick++;
      this.world.step();
      this.snapAll(now);
    }
    for (const p of this.players.values()) {
      if (p.state !== 'ingame' && now - p.slot.since > this.joinTimeoutMs) this.net.disconnect(p.slot, 'took too long to join', now);
      else if (p.state === 'ingame' && now - p.lastSnapAckAt > this.snapAckTimeoutMs) this.net.disconnect(p.slot, 'timeout: no snapshot acknowledged', now);
    }
    this.net.update(now);
  }

  private tickStartMs(tick: number): number {
    return (this.startMs ?? 0) + tick * (1000 / TICKS_PER_SECOND);
  }

  private snapAll(now: number): void {
    const t = this.tick;
    for (const p of this.players.values()) {
      if (p.state !== 'ingame') continue;
      if (!this.producer.due(p.cid, t)) continue;
      const out = this.producer.snap(p.cid, t, this.world.snapshotFor(this.codec, p.cid));
      if (out === null) continue;
      const parts = out.bytes.length;
      const c = p.counts;
      if (out.delta === null) c.empty++;
      else if (out.deltaTick < 0) c.full++;
      else c.delta++;
      if (out.delta !== null) c.parts += parts;
      if (parts > 1) {
        if (out.deltaTick < 0) c.multiPartFull++;
        else c.multiPartDelta++;
      }
      p.sent.set(t, { deltaTick: out.deltaTick, parts: out.delta === null ? 0 : parts });
      if (p.sent.size > SENT_HISTORY) p.sent.delete(p.sent.keys().next().value!);
      for (const m of out.bytes) this.net.send(p.slot, m, false, now);
      this.net.flush(p.slot, now);
    }
  }

  // ---------------------------------------------------------------------------

  private newCounts(): SnapCounts {
    return {
      full: 0,
      delta: 0,
      empty: 0,
      parts: 0,
      multiPartFull: 0,
      multiPartDelta: 0,
      inputs: 0,
      firstAck: -1,
      lastAck: -1,
      ackedDelta: 0,
      ackedFull: 0,
      ackedMultiPart: 0,
      ackedMultiPartDelta: 0,
      ackRegressions: 0,
      mapChunks: 0,
    };
  }

  private onConnect(slot: NetSlot, _now: number): void {
    const p: Player = {
      slot,
      cid: slot.index,
      state: 'connecting',
      name: '',
      clan: '',
      country: -1,
      skin: 'default',
      skinParts: ['standard', '', '', 'standard', 'standard', 'standard'],
      ddnetVersion: 0,
      mapChunk: 0,
      lastIntended: -1,
      counts: this.newCounts(),
      sent: new Map(),
      ackedTicks: new Set(),
      bestAck: -1,
      lastSnapAckAt: 0,
    };
    this.players.set(p.cid, p);
    this.log({ event: 'connect', cid: p.cid, peer: slot.key, handshake: slot.handshake });
  }

  private onDrop(slot: NetSlot, reason: string, now: number): void {
    const p = this.players.get(slot.index);
    if (p === undefined || p.slot !== slot) return;
    this.players.delete(p.cid);
    this.producer.removeClient(p.cid);
    const hadTee = this.world.tees.has(p.cid) && p.state === 'ingame';
    this.world.removeTee(p.cid);
    this.departed.push({ name: p.name, cid: p.cid, counts: p.counts, reason });
    if (this.departed.length > 64) this.departed.shift();
    this.log({ event: 'drop', cid: p.cid, name: p.name, reason, counts: p.counts });
    if (hadTee && this.netVersion === '0.7') {
      // within the games' reason buffer (127 bytes, cut on a character boundary), no control characters
      const shown = sanitizeCloseReason(reason);
      for (const o of this.players.values()) {
        if (o.state !== 'ingame') continue;
        const w = msgHeader(new MsgWriter(), false, G07.clientDrop).int(p.cid).str(shown).int(0);
        this.net.send(o.slot, w.finish(), true, now, true);
      }
    }
  }

  private sendSys(p: Player, w: MsgWriter, vital: boolean, now: number, flush = true): void {
    this.net.send(p.slot, w.finish(), vital, now, flush);
  }

  private onChunks(slot: NetSlot, chunks: NetChunk[], now: number): void {
    const p = this.players.get(slot.index);
    if (p === undefined || p.slot !== slot) return;
    for (const c of chunks) {
      try {
        this.onMessage(p, c, now);
      } catch {
        // A malformed message from a client: ignored (the games do the same).
      }
      if (!this.players.has(p.cid)) return;
    }
  }

  private onMessage(p: Player, c: NetChunk, now: number): void {
    const r = new MsgReader(c.data);
    const h = readMsgHeader(r);
    const ids = this.ids;
    if (h.system) {
      if (h.id === 0) {
        // DDNet UUID message: CLIENTVER (connection uuid, version, version string).
        if (h.uuid === '8c001304-8461-3e47-8787-f672b3835bd4' && c.vital) {
          r.raw(16, 'connectionUuid');
          p.ddnetVersion = r.int('ddnetVersion');
        }
        return;
      }
      if (h.id === ids.info) {
        if (!c.vital || p.state !== 'connecting') return;
        const version = r.str('version');
        const want = this.netVersion === '0.7' ? NETVERSION_07 : NETVERSION_06;
        if (version !== want) {
          this.net.disconnect(p.slot, `Wrong version. Server is running '${want}' and client '${version.slice(0, 40)}'`, now);
          return;
        }
        p.state = 'map';
        this.sendMapChange(p, now);
        return;
      }
      if (h.id === 19 && this.netVersion === '0.6') {
        // REQUEST_MAP_DATA (0.6): int chunk. (Also after READY: harmless, and lets tests fetch the map.)
        if (!c.vital || p.state === 'connecting' || p.state === 'ingame') return;
        this.sendMapData06(p, r.int('chunk'), now);
        return;
      }
      if (h.id === 23 && this.netVersion === '0.7') {
        // REQUEST_MAP_DATA (0.7): the next chunks.
        if (!c.vital || p.state === 'connecting' || p.state === 'ingame') return;
        for (let i = 0; i < MAP_CHUNKS_PER_REQUEST_07 && p.mapChunk >= 0; i++) this.sendMapData07(p, now);
        return;
      }
      if (h.id === ids.ready) {
        if (!c.vital || p.state !== 'map') return;
        p.state = 'ready';
        this.sendSys(p, msgHeader(new MsgWriter(), false, ids.gameMotd).str(this.motd), true, now, false);
        if (this.netVersion === '0.7') {
          this.sendSys(p, msgHeader(new MsgWriter(), false, G07.serverSettings).int(0).int(0).int(0).int(0).int(0).int(this.maxClients), true, now, false);
        }
        this.sendSys(p, msgHeader(new MsgWriter(), true, ids.conReady), true, now);
        return;
      }
      if (h.id === ids.enterGame) {
        if (!c.vital || p.state !== 'info') return;
        this.enterGame(p, now);
        return;
      }
      if (h.id === ids.input) {
        if (p.state !== 'ingame') return;
        this.onInput(p, r, now);
        return;
      }
      if (h.id === ids.ping) {
        // queued, not flushed: it goes with the next packet (the games' way), so that a datagram of 255 PINGs gets
        // one or two datagrams back, not 255
        this.sendSys(p, msgHeader(new MsgWriter(), true, ids.pingReply), false, now, false);
        return;
      }
      return;
    }
    // Game messages: only vital ones, after READY.
    if (!c.vital || p.state === 'connecting' || p.state === 'map') return;
    if (h.id === ids.gameStartInfo) {
      if (p.state !== 'ready') return;
      // as the games' servers take them: no control characters, no leading whitespace, within the field's bytes (cut
      // on a character: the 0.6 ClientInfo item packs them into ints, and other clients show them)
      p.name = sanitizePlayerString(r.str('name'), NAME_SIZE) || '(connecting)';
      p.clan = sanitizePlayerString(r.str('clan'), CLAN_SIZE);
      p.country = r.int('country');
      if (this.netVersion === '0.7') {
        for (let i = 0; i < 6; i++) p.skinParts[i] = sanitizePlayerString(r.str('skinPart'), SKIN_SIZE);
      } else {
        p.skin = sanitizePlayerString(r.str('skin'), SKIN_SIZE);
      }
      p.state = 'info';
      this.sendSys(p, msgHeader(new MsgWriter(), false, ids.gameReadyToEnter), true, now);
    }
  }

  private sendMapChange(p: Player, now: number): void {
    const m = this.map;
    const w = msgHeader(new MsgWriter(), true, this.ids.mapChange).str(m.name).int(m.crc).int(m.data.length);
    if (this.netVersion === '0.7') w.int(MAP_CHUNKS_PER_REQUEST_07).int(MAP_CHUNK_07).raw(m.sha256);
    p.mapChunk = 0;
    this.sendSys(p, w, true, now);
  }

  private sendMapData06(p: Player, chunk: number, now: number): void {
    const size = this.map.data.length;
    const total = Math.ceil(size / MAP_CHUNK_06);
    if (chunk < 0 || chunk >= total) return;
    const start = chunk * MAP_CHUNK_06;
    const end = Math.min(size, start + MAP_CHUNK_06);
    const last = end >= size ? 1 : 0;
    const w = msgHeader(new MsgWriter(), true, 3)
      .int(last)
      .int(this.map.crc)
      .int(chunk)
      .int(end - start)
      .raw(this.map.data.subarray(start, end));
    p.counts.mapChunks++;
    this.sendSys(p, w, true, now);
    if (chunk === 0 || last === 1) this.log({ event: 'map-data', cid: p.cid, chunk, last: last === 1 });
  }

  private sendMapData07(p: Player, now: number): void {
    const size = this.map.data.length;
    const start = p.mapChunk * MAP_CHUNK_07;
    if (start >= size) {
      p.mapChunk = -1;
      return;
    }
    const end = Math.min(size, start + MAP_CHUNK_07);
    const w = msgHeader(new MsgWriter(), true, 3).raw(this.map.data.subarray(start, end));
    p.counts.mapChunks++;
    this.sendSys(p, w, true, now);
    if (p.mapChunk === 0 || end >= size) this.log({ event: 'map-data', cid: p.cid, chunk: p.mapChunk, last: end >= size });
    p.mapChunk = end >= size ? -1 : p.mapChunk + 1;
  }

  private clientInfo07(tee: { cid: number; name: string; clan: string; country: number; skinParts: string[] }, local: boolean): Uint8Array {
    const w = msgHeader(new MsgWriter(), false, G07.clientInfo)
      .int(tee.cid)
      .int(local ? 1 : 0)
      .int(0)
      .str(tee.name)
      .str(tee.clan)
      .int(tee.country);
    for (let i = 0; i < 6; i++) w.str(tee.skinParts[i] ?? '');
    for (let i = 0; i < 6; i++) w.int(0);
    for (let i = 0; i < 6; i++) w.int(0);
    w.int(1); // silent
    return w.finish();
  }

  private enterGame(p: Player, now: number): void {
    p.state = 'ingame';
    p.lastSnapAckAt = now;
    const tee = this.world.addTee(p.cid, { name: p.name, clan: p.clan, country: p.country, skin: p.skin, skinParts: [...p.skinParts], bot: false });
    this.producer.addClient(p.cid);
    if (this.netVersion === '0.7') {
      this.sendSys(p, msgHeader(new MsgWriter(), false, G07.gameInfo).int(0).int(20).int(0).int(0).int(1), true, now, false);
      for (const t of this.world.tees.values()) this.net.send(p.slot, this.clientInfo07(t, t.cid === p.cid), true, now);
      for (const o of this.players.values()) {
        if (o !== p && o.state === 'ingame') this.net.send(o.slot, this.clientInfo07(tee, false), true, now, true);
      }
    }
    const chat = msgHeader(new MsgWriter(), false, this.netVersion === '0.7' ? G07.chat : G06.chat);
    if (this.netVersion === '0.7') chat.int(1).int(-1).int(-1).str(`${p.name} entered the tickwire world`);
    else chat.int(0).int(-1).str(`${p.name} entered the tickwire world`);
    for (const o of this.players.values()) if (o.state === 'ingame') this.net.send(o.slot, chat.finish(), true, now, o !== p);
    this.net.flush(p.slot, now);
    this.log({ event: 'enter', cid: p.cid, name: p.name, ddnetVersion: p.ddnetVersion || undefined });
  }

  private onInput(p: Player, r: MsgReader, now: number): void {
    const ack = r.int('ackTick');
    const intended = r.int('intendedTick');
    const size = r.int('size');
    const c = p.counts;
    c.inputs++;
    if (ack >= 0) {
      if (c.firstAck < 0) c.firstAck = ack;
      if (ack < c.lastAck) c.ackRegressions++;
      c.lastAck = ack;
      const s = p.sent.get(ack);
      if (s !== undefined && ack > p.bestAck) {
        // a snapshot we sent, newer than any acknowledged before: the client receives them
        p.bestAck = ack;
        p.lastSnapAckAt = now;
      }
      if (s !== undefined && !p.ackedTicks.has(ack)) {
        p.ackedTicks.add(ack);
        if (p.ackedTicks.size > SENT_HISTORY) p.ackedTicks.delete(p.ackedTicks.values().next().value!);
        if (s.deltaTick >= 0) c.ackedDelta++;
        else c.ackedFull++;
        if (s.parts > 1) {
          c.ackedMultiPart++;
          if (s.deltaTick >= 0) c.ackedMultiPartDelta++;
        }
      }
    }
    this.producer.onInput(p.cid, ack);
    if (size >= 40 && size <= 512 && r.remaining > 0) {
      const d: number[] = [];
      for (let i = 0; i < 10 && r.remaining > 0; i++) d.push(r.int('input'));
      const tee = this.world.tees.get(p.cid);
      if (tee !== undefined) {
        const inp: TeeInput = {
          direction: d[0] ?? 0,
          targetX: d[1] ?? IDLE_INPUT.targetX,
          targetY: d[2] ?? 0,
          jump: d[3] ?? 0,
          fire: (d[4] ?? 0) & 1,
          hook: d[5] ?? 0,
          playerFlags: d[6] ?? 0,
          wantedWeapon: d[7] ?? 0,
        };
        tee.input = inp;
      }
    }
    // INPUTTIMING for a newer intended tick: how early (ms) the input arrived.
    if (intended > p.lastIntended && intended > this.tick - 100 && intended < this.tick + 500) {
      p.lastIntended = intended;
      const left = Math.round(this.tickStartMs(intended) - now);
      this.sendSys(p, msgHeader(new MsgWriter(), true, this.ids.inputTiming).int(intended).int(left), false, now, false);
    }
  }

  /** Counts for every player in game (for logs and tests). */
  summary(): { cid: number; name: string; state: PlayerState; counts: SnapCounts }[] {
    return [...this.players.values()].map((p) => ({ cid: p.cid, name: p.name, state: p.state, counts: { ...p.counts } }));
  }

  /** Say goodbye to everyone. */
  close(reason: string, now: number): void {
    this.net.close(reason, now);
  }
}

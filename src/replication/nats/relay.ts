/**
 * A relay: follows one world's stream in JetStream and serves its own clients
 * through a `ReplicationServer` (interest, acked baselines, MTU, priorities),
 * with the authority's entity ids and tick numbers.
 *
 * It starts from the latest keyframe, then follows the deltas with an ordered
 * consumer. A delta whose base is not the relay's tick is a gap: the relay
 * asks the authority for a keyframe and resynchronises from the next one,
 * without dropping its clients (they get deltas or full states against what
 * they acknowledged, as usual). After a NATS restart it resumes from the
 * stream sequence after the last one it saw; if JetStream's retention dropped
 * messages in between, it says so (`lost`).
 */
import { headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type ConsumerMessages, type JetStreamClient, type JetStreamManager, type JsMsg } from '@nats-io/jetstream';
import { ReplicationClient, readPacketHeader } from '../client.js';
import { schemaFromJson, schemaHash, type AnyEntityDef } from '../schema.js';
import { ReplicationServer, type Delivery } from '../server.js';
import { hex32 } from '../wire.js';
import { H, worldNames, type WorldNames } from './names.js';

export type RelayEvent =
  | { type: 'world'; tick: number; entities: number; schema: string }
  | { type: 'gap'; tick: number; base: number; had: number }
  | { type: 'resync'; from: number; to: number; entities: number }
  | { type: 'lost'; fromSeq: number; toSeq: number; count: number }
  | { type: 'epoch'; epoch: string }
  | { type: 'consumer'; startSeq: number; reason: string }
  | { type: 'nats'; status: string }
  | { type: 'error'; message: string };

export interface NatsRelayOptions {
  world: string;
  /** The schema; default: the one in the keyframe's header (a mismatch with a given one is an error). */
  entities?: readonly AnyEntityDef[];
  /** Largest packet for acked delivery (UDP; default 1200). */
  mtu?: number;
  /** Largest packet for reliable delivery (WebSocket; default 16384: a join rarely needs more than one packet). */
  reliableMtu?: number;
  baselineWindow?: number;
  /** Name of this relay (sent with inputs). */
  name?: string;
  /** Events: world loaded, gaps, resyncs, retention losses, NATS status. */
  onEvent?: (e: RelayEvent) => void;
  /** A stalled stream (no message for this long while connected) recreates the consumer (default 2000 ms). */
  stallMs?: number;
}

export interface RelayStats {
  deltas: number;
  keyframes: number;
  gaps: number;
  resyncs: number;
  lost: number;
  ticks: number;
}

export class NatsRelay {
  readonly names: WorldNames;
  readonly name: string;
  readonly stats: RelayStats = { deltas: 0, keyframes: 0, gaps: 0, resyncs: 0, lost: 0, ticks: 0 };
  /** The relay's worlds for its clients, one per delivery mode in use (reliable for WebSocket, acked for UDP). */
  private readonly servers = new Map<Delivery, ReplicationServer>();
  private defs: readonly AnyEntityDef[] | undefined;
  private committed = 0;
  /** The authority's hash of the world at the relay's current tick, when published. */
  authorityHash: number | undefined;
  private input: ReplicationClient | undefined;
  private readonly js: JetStreamClient;
  private jsm: JetStreamManager | undefined;
  private epoch: string | undefined;
  private synced = false;
  private lastSeq = 0;
  private pending = 0;
  private pendingHash: number | undefined;
  private flushQueued = false;
  private lastMsgAt = Date.now();
  private lastKeyAsk = 0;
  private messages: ConsumerMessages | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private connected = true;
  private closed = false;
  private restarting = false;
  private readonly tickListeners: Array<(tick: number) => void> = [];
  private readonly resetListeners: Array<() => void> = [];
  private ready: (() => void) | undefined;
  /** Resolves when the first keyframe is applied. */
  readonly loaded: Promise<void>;

  constructor(
    readonly nc: NatsConnection,
    private readonly opts: NatsRelayOptions,
  ) {
    this.names = worldNames(opts.world);
    this.name = opts.name ?? `relay-${process.pid}`;
    this.js = jetstream(nc);
    this.loaded = new Promise((r) => (this.ready = r));
  }

  /** The relay's tick (the authority's tick it mirrors; 0 before the first keyframe). */
  get tick(): number {
    return this.committed;
  }

  /**
   * The relay's server for a delivery mode (created on first use with the
   * current world); undefined before the first keyframe. Transports add their
   * clients to it and send `packetFor` after each tick.
   */
  serverFor(delivery: Delivery): ReplicationServer | undefined {
    const input = this.input;
    if (input === undefined || this.committed === 0) return undefined;
    let s = this.servers.get(delivery);
    if (s === undefined) {
      const mtu = delivery === 'reliable' ? (this.opts.reliableMtu ?? 16384) : this.opts.mtu;
      s = new ReplicationServer({ entities: this.defs!, delivery, mtu, baselineWindow: this.opts.baselineWindow });
      s.applyFrom(input, { spawned: [...input.entities.keys()], changed: new Map(), despawned: [] });
      s.tick(Math.max(this.committed, this.pending));
      this.servers.set(delivery, s);
    }
    return s;
  }

  /** Called after each relay tick, to send every client its packet. */
  onTick(fn: (tick: number) => void): void {
    this.tickListeners.push(fn);
  }

  /** Called when the authority restarted (new epoch, ticks from 1 again): transports drop their clients. */
  onReset(fn: () => void): void {
    this.resetListeners.push(fn);
  }

  private emit(e: RelayEvent): void {
    this.opts.onEvent?.(e);
  }

  /** Find the latest keyframe and follow the stream from it. */
  async start(): Promise<void> {
    this.jsm = await jetstreamManager(this.nc);
    void this.watchStatus();
    this.timer = setInterval(() => this.watchdog(), 500);
    await this.follow('start');
  }

  private async watchStatus(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect' || s.type === 'reconnect') {
        this.connected = s.type === 'reconnect';
        this.lastMsgAt = Date.now();
        this.emit({ type: 'nats', status: s.type });
        // the server may have lost the (ephemeral) consumer: make a new one after the last sequence seen
        if (this.connected) setTimeout(() => this.connected && !this.restarting && void this.follow('reconnected'), 250);
      }
    }
  }

  /** (Re)create the ordered consumer: from the latest keyframe when out of sync and nothing seen, else after the last sequence seen. */
  private async follow(reason: string): Promise<void> {
    if (this.closed) return;
    this.restarting = true;
    try {
      this.messages?.stop();
      let start = this.lastSeq + 1;
      if (this.lastSeq === 0 || !this.synced) {
        try {
          const m = await this.jsm!.streams.getMessage(this.names.stream, { last_by_subj: this.names.key });
          if (m !== null && m.seq > this.lastSeq) start = m.seq;
        } catch {
          // no stream or no keyframe yet: follow from the start
        }
      }
      if (start > this.lastSeq + 1) this.lastSeq = start - 1; // skipped on purpose (to a keyframe), not lost
      this.emit({ type: 'consumer', startSeq: start, reason });
      const c = await this.js.consumers.get(this.names.stream, { opt_start_seq: start });
      this.lastMsgAt = Date.now();
      this.messages = await c.consume({ max_messages: 512, callback: (m) => this.onMessage(m) });
    } catch (e) {
      this.emit({ type: 'error', message: `consumer: ${(e as Error).message}` });
    } finally {
      this.restarting = false;
      this.lastMsgAt = Date.now();
    }
  }

  private watchdog(): void {
    if (this.closed || this.restarting || !this.connected) return;
    const quiet = Date.now() - this.lastMsgAt;
    if (quiet > (this.opts.stallMs ?? 2000)) void this.follow(`no message for ${quiet} ms`);
    else if (!this.synced && this.input !== undefined) this.askKey();
  }

  private askKey(): void {
    const now = Date.now();
    if (now - this.lastKeyAsk < 500 || !this.connected) return;
    this.lastKeyAsk = now;
    try {
      this.nc.publish(this.names.control, 'key');
    } catch {
      // closed or reconnecting: asked again later
    }
  }

  private onMessage(m: JsMsg): void {
    this.lastMsgAt = Date.now();
    const seq = m.seq;
    if (seq <= this.lastSeq) return; // seen before a consumer was recreated
    if (this.lastSeq > 0 && seq > this.lastSeq + 1) {
      const lost = { type: 'lost' as const, fromSeq: this.lastSeq + 1, toSeq: seq - 1, count: seq - 1 - this.lastSeq };
      this.stats.lost += lost.count;
      this.emit(lost);
    }
    this.lastSeq = seq;
    const h = m.headers;
    const tick = Number(h?.get(H.tick));
    const epoch = h?.get(H.epoch) ?? '';
    const hashHex = h?.get(H.hash);
    const hash = hashHex ? Number.parseInt(hashHex, 16) : undefined;
    try {
      // (a message without a tick cannot be applied: an error like a header that contradicts its packet)
      if (!Number.isInteger(tick) || tick < 1) throw new Error(`no valid ${H.tick} header (${JSON.stringify(h?.get(H.tick) ?? null)})`);
      const key = m.subject === this.names.key;
      const baseText = key ? undefined : h?.get(H.base);
      // (every delta has one, a full state's too: `Number('')` would read a missing header as tick 0, a gap)
      const base = baseText === undefined || baseText === '' ? Number.NaN : Number(baseText);
      if (!key && (!Number.isInteger(base) || base < 0 || base >= tick))
        throw new Error(`no valid ${H.base} header (${JSON.stringify(baseText ?? null)}) on a delta of tick ${tick}`);
      this.checkHeaders(m.data, key, tick, key ? undefined : base);
      if (key) this.onKey(m, tick, epoch, hash);
      else this.onDelta(m, tick, base!, epoch, hash);
    } catch (e) {
      this.emit({ type: 'error', message: `seq ${seq}: ${(e as Error).message}` });
      this.synced = false;
      this.askKey();
    }
  }

  /**
   * The headers the relay goes by must say what the packet says: its tick (the relay's servers are ticked to it;
   * a packet's tick is at most 2^32 - 1), and for a delta, its baseline (a delta may also be a full state); a
   * keyframe is a full state.
   */
  private checkHeaders(data: Uint8Array, key: boolean, tick: number, base: number | undefined): void {
    const p = readPacketHeader(data);
    if (p.tick !== tick) throw new Error(`${H.tick} ${tick} is not the packet's tick ${p.tick}`);
    if (key && p.baseTick !== null) throw new Error(`a keyframe that is a delta (from tick ${p.baseTick}), not a full state`);
    if (!key && p.baseTick !== null && p.baseTick !== base) throw new Error(`${H.base} ${base} is not the packet's baseline ${p.baseTick}`);
  }

  private onKey(m: JsMsg, tick: number, epoch: string, hash: number | undefined): void {
    this.stats.keyframes++;
    if (epoch !== this.epoch && this.epoch !== undefined) {
      // the authority restarted: its ticks begin again; start a new world
      this.emit({ type: 'epoch', epoch });
      for (const fn of this.resetListeners) fn();
      this.servers.clear();
      this.input = undefined;
      this.committed = 0;
      this.synced = false;
      this.pending = 0;
    }
    // in step with the deltas, a keyframe is for the tick just applied; one ahead means deltas were missed
    if (this.input !== undefined && tick <= Math.max(this.tick, this.pending)) return;
    if (this.input === undefined) this.load(m);
    this.epoch = epoch;
    const input = this.input!;
    const from = Math.max(this.tick, this.pending);
    const r = input.receive(m.data);
    if (r.ignored !== undefined) return;
    for (const srv of this.servers.values()) srv.applyFrom(input, r);
    this.stats.resyncs++;
    this.synced = true;
    this.queue(tick, hash);
    this.emit(
      from === 0
        ? { type: 'world', tick, entities: input.entities.size, schema: hex32(input.hash) }
        : { type: 'resync', from, to: tick, entities: input.entities.size },
    );
  }

  private load(m: JsMsg): void {
    let defs = this.opts.entities;
    const json = m.headers?.get(H.schema);
    if (json) {
      const theirs = schemaFromJson(JSON.parse(json));
      if (defs === undefined) defs = theirs;
      else if (schemaHash(defs) !== schemaHash(theirs))
        throw new Error(`the authority's schema ${hex32(schemaHash(theirs))} differs from the relay's ${hex32(schemaHash(defs))}`);
    }
    if (defs === undefined) throw new Error('no schema: the keyframe carries none and none was given');
    this.input = new ReplicationClient({ entities: defs, window: 64 });
    this.defs = defs;
  }

  private onDelta(m: JsMsg, tick: number, base: number, epoch: string, hash: number | undefined): void {
    this.stats.deltas++;
    if (!this.synced || this.input === undefined || epoch !== this.epoch) {
      this.askKey();
      return;
    }
    const cur = Math.max(this.tick, this.pending);
    if (tick <= cur) return;
    if (base !== cur) {
      this.stats.gaps++;
      this.emit({ type: 'gap', tick, base, had: cur });
      this.synced = false;
      this.askKey();
      return;
    }
    const input = this.input!;
    const r = input.receive(m.data);
    if (r.ignored !== undefined) {
      this.synced = false;
      this.askKey();
      return;
    }
    for (const srv of this.servers.values()) srv.applyFrom(input, r);
    this.queue(tick, hash);
  }

  /** Commit at the next turn of the event loop: a burst of deltas (catching up) makes one relay tick. */
  private queue(tick: number, hash: number | undefined): void {
    this.pending = tick;
    this.pendingHash = hash;
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushQueued = false;
    if (this.input === undefined || this.pending <= this.committed) return;
    const t = this.pending;
    // (in a setImmediate: an error thrown here would end the process) a tick the servers refuse is reported, and
    // the relay resyncs from the next keyframe instead of committing it
    try {
      for (const srv of this.servers.values()) if (srv.currentTick < t) srv.tick(t);
    } catch (e) {
      this.emit({ type: 'error', message: `tick ${t}: ${(e as Error).message}` });
      this.pending = this.committed;
      this.synced = false;
      this.askKey();
      return;
    }
    this.committed = t;
    this.authorityHash = this.pendingHash;
    this.stats.ticks++;
    if (this.ready !== undefined) {
      this.ready();
      this.ready = undefined;
    }
    for (const fn of this.tickListeners) {
      try {
        fn(t);
      } catch (e) {
        this.emit({ type: 'error', message: `tick ${t} listener: ${(e as Error).message}` });
      }
    }
  }

  /** Forward a client's input to the authority. */
  forwardInput(client: string, data: Uint8Array): void {
    if (!this.connected) return;
    const h = headers();
    h.set(H.relay, this.name);
    h.set(H.client, client);
    try {
      this.nc.publish(this.names.input, data, { headers: h });
    } catch {
      // dropped while NATS is away (inputs are not stored)
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.messages?.stop();
  }
}

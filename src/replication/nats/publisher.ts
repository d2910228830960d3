/**
 * The authority's side of relays over NATS: after each `tick()`, one world
 * delta (tick to tick, no interest, no per-client state) to a JetStream
 * stream, a keyframe every N ticks and on demand, and the world's hash per
 * tick when given. Inputs from clients come back on a plain subject.
 */
import { headers, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { DiscardPolicy, RetentionPolicy, StorageType, jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { schemaToJson } from '../schema.js';
import type { ReplicationServer } from '../server.js';
import { H, worldNames, type WorldNames } from './names.js';

export interface NatsPublisherOptions {
  world: string;
  /** A keyframe every this many ticks (default 100: 5 s at 20 Hz). */
  keyframeEvery?: number;
  /** Stream retention: seconds (default 120) and messages (default 20,000). */
  maxAgeSeconds?: number;
  maxMsgs?: number;
  /** Stream storage (default `file`: survives a NATS restart). */
  storage?: 'file' | 'memory';
  /** Inputs from clients (via relays): bytes, relay name, client key. */
  onInput?: (data: Uint8Array, from: { relay: string; client: string }) => void;
  /** A publish failed (NATS away): the next tick sends a keyframe. */
  onError?: (e: Error) => void;
}

export interface PublisherStats {
  deltas: number;
  keyframes: number;
  bytes: number;
  failures: number;
  /** Ticks not published because NATS was away. */
  skipped: number;
}

export class NatsPublisher {
  readonly names: WorldNames;
  readonly stats: PublisherStats = { deltas: 0, keyframes: 0, bytes: 0, failures: 0, skipped: 0 };
  readonly epoch = Math.floor(Math.random() * 0xffffffff).toString(16);
  private readonly js: JetStreamClient;
  private readonly every: number;
  private readonly schema: string;
  private readonly subs: Subscription[] = [];
  private last = 0;
  private lastKey = 0;
  private needKey = true;
  private connected = true;
  private closed = false;

  private constructor(
    readonly nc: NatsConnection,
    readonly server: ReplicationServer,
    private readonly opts: NatsPublisherOptions,
  ) {
    this.names = worldNames(opts.world);
    this.js = jetstream(nc);
    this.every = opts.keyframeEvery ?? 100;
    this.schema = JSON.stringify(schemaToJson(server.defs));
  }

  /** Create the world's stream if missing, subscribe to inputs and keyframe requests. */
  static async start(nc: NatsConnection, server: ReplicationServer, opts: NatsPublisherOptions): Promise<NatsPublisher> {
    const p = new NatsPublisher(nc, server, opts);
    await p.ensureStream();
    const { input, control } = p.names;
    p.subs.push(
      nc.subscribe(control, {
        callback: (_e, m) => {
          if (m.string() === 'key') p.needKey = true;
        },
      }),
    );
    if (opts.onInput !== undefined) {
      const cb = opts.onInput;
      p.subs.push(nc.subscribe(input, { callback: (_e, m) => cb(m.data, { relay: m.headers?.get(H.relay) ?? '', client: m.headers?.get(H.client) ?? '' }) }));
    }
    void p.watch();
    return p;
  }

  private async ensureStream(): Promise<void> {
    const jsm = await jetstreamManager(this.nc);
    const { stream, delta, key } = this.names;
    const config = {
      name: stream,
      subjects: [delta, key],
      retention: RetentionPolicy.Limits,
      storage: this.opts.storage === 'memory' ? StorageType.Memory : StorageType.File,
      max_age: (this.opts.maxAgeSeconds ?? 120) * 1e9,
      max_msgs: this.opts.maxMsgs ?? 20_000,
      discard: DiscardPolicy.Old,
      num_replicas: 1,
      duplicate_window: 1e9,
    };
    try {
      await jsm.streams.info(stream);
      await jsm.streams.update(stream, config);
    } catch {
      await jsm.streams.add(config);
    }
  }

  private async watch(): Promise<void> {
    for await (const s of this.nc.status()) {
      if (s.type === 'disconnect') this.connected = false;
      else if (s.type === 'reconnect') {
        this.connected = true;
        this.needKey = true;
        this.ensureStream().catch((e: Error) => this.opts.onError?.(e));
      }
    }
  }

  /** Ask for a keyframe at the next `publish()`. */
  keyframe(): void {
    this.needKey = true;
  }

  /**
   * Publish the current tick (call after `server.tick()`): a delta from the
   * previous tick published, and a keyframe when due. `hash`: the world's
   * `viewHash` at this tick, for checks. Does not wait for JetStream's
   * acknowledgement; a failure makes the next tick a keyframe.
   */
  publish(hash?: number): void {
    if (this.closed) return;
    const t = this.server.currentTick;
    if (t === this.last) return;
    if (!this.connected) {
      this.stats.skipped++;
      this.needKey = true;
      this.last = 0;
      return;
    }
    const hdr = () => {
      const h = headers();
      h.set(H.tick, String(t));
      h.set(H.epoch, this.epoch);
      if (hash !== undefined) h.set(H.hash, (hash >>> 0).toString(16));
      return h;
    };
    const canDelta = this.last > 0 && t - this.last < this.server.window;
    if (canDelta) {
      const h = hdr();
      h.set(H.base, String(this.last));
      this.send(this.names.delta, this.server.worldPacket(this.last), h);
      this.stats.deltas++;
    }
    if (!canDelta || this.needKey || t - this.lastKey >= this.every) {
      const h = hdr();
      h.set(H.schema, this.schema);
      this.send(this.names.key, this.server.worldPacket(), h);
      this.stats.keyframes++;
      this.lastKey = t;
      this.needKey = false;
    }
    this.last = t;
  }

  private send(subject: string, data: Uint8Array, hdr: ReturnType<typeof headers>): void {
    this.stats.bytes += data.length;
    this.js.publish(subject, data, { headers: hdr, timeout: 5000 }).catch((e: Error) => {
      this.stats.failures++;
      this.needKey = true;
      this.opts.onError?.(e);
    });
  }

  /** Stop publishing and unsubscribe (the connection stays the caller's). */
  close(): void {
    this.closed = true;
    for (const s of this.subs) s.unsubscribe();
  }
}

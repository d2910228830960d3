/**
 * Server side (reference §13): per client, keep the snapshots sent (3 s by
 * default), delta each new snapshot against the client's acknowledged tick
 * when still held (else against the empty snapshot), and emit SNAPEMPTY /
 * SNAPSINGLE / SNAP parts, following the INIT / FULL / RECOVER send rates.
 */
import { SYSTEM_MESSAGE_IDS, checkTicks, sliceSnapshot, type SliceOptions, type SnapMessage } from './codec.js';
import { STATIC_SIZES, type TwVersion } from './delta.js';
import { DeltaPacker } from './pack.js';
import { Snapshot, SnapshotStorage } from './snapshot.js';
import { decodeInts, writeVarint } from './varint.js';
import { resolveTwLimits, type TwLimits } from './limits.js';
import { EncodeError } from '../../core/errors.js';

export type SnapRate = 'INIT' | 'FULL' | 'RECOVER';

/** The send policy; the defaults are the games' (§13.2, §13.3). */
export interface SnapPolicy {
  /** Build snapshots only on ticks divisible by this (2 = default, 1 = `sv_high_bandwidth 1`). */
  snapEvery: number;
  /** INIT: send on ticks divisible by this (10). */
  initEvery: number;
  /** RECOVER: send on ticks divisible by this (50). */
  recoverEvery: number;
  /** Ticks a sent snapshot is kept as a possible base (150 = 3 s). */
  retentionTicks: number;
  /** Also drop stored snapshots older than the last acknowledged tick (newer DDNet). */
  purgeBeforeAck: boolean;
}

export const DEFAULT_SNAP_POLICY: Readonly<SnapPolicy> = Object.freeze({
  snapEvery: 2,
  initEvery: 10,
  recoverEvery: 50,
  retentionTicks: 150,
  purgeBeforeAck: false,
});

export interface ProducerOptions extends SliceOptions {
  policy?: Partial<SnapPolicy>;
  /** The receivers' limits the output must meet (`twMaxItems`, `twMaxSnapshotSize`; defaults as the receiver's). */
  limits?: Partial<TwLimits>;
}

/** What the producer sends to one client for one tick. */
export interface ProducedSnapshot {
  tick: number;
  /** Base tick (−1 = full). */
  deltaTick: number;
  crc: number;
  /** The delta ints (null = no change, SNAPEMPTY); unpacked from the bytes on first read. */
  readonly delta: Int32Array | null;
  /** The messages (structured) and their bytes, one per part. */
  messages: SnapMessage[];
  bytes: Uint8Array[];
}

/** The producer's result: the delta ints are unpacked from the packed bytes on first read. */
class Produced implements ProducedSnapshot {
  #packed: Uint8Array;
  #ints: Int32Array | null | undefined = undefined;
  constructor(
    readonly tick: number,
    readonly deltaTick: number,
    readonly crc: number,
    packed: Uint8Array,
    readonly messages: SnapMessage[],
    readonly bytes: Uint8Array[],
  ) {
    this.#packed = packed;
  }
  get delta(): Int32Array | null {
    if (this.#ints === undefined) this.#ints = this.#packed.length === 0 ? null : decodeInts(this.#packed);
    return this.#ints;
  }
}

/** Bytes of the producer's message pool. */
const MESSAGE_POOL = 64 * 1024;

/**
 * Writes snapshot messages (the bytes of `encodeSnapMessage`) one after another
 * into a pool and hands out views of it, as DeltaPacker does for the deltas: no
 * backing store per message. A pool is never written twice; a view keeps it alive.
 */
class MessageWriter {
  private buf = new Uint8Array(MESSAGE_POOL);
  private at = 0;

  write(m: SnapMessage, version: TwVersion): Uint8Array {
    const ids = SYSTEM_MESSAGE_IDS[version];
    const data = m.data;
    // at most 7 ints of 5 bytes, then the data
    const worst = 35 + data.length;
    if (this.at + worst > this.buf.length) {
      this.buf = new Uint8Array(Math.max(MESSAGE_POOL, worst));
      this.at = 0;
    }
    const b = this.buf;
    const start = this.at;
    const delta = (m.tick - m.deltaTick) | 0;
    let p = start;
    if (m.kind === 'snap_empty') {
      p = writeVarint(b, p, (ids.SNAPEMPTY << 1) | 1);
      p = writeVarint(b, p, m.tick);
      p = writeVarint(b, p, delta);
    } else {
      if (m.kind === 'snap_single') {
        p = writeVarint(b, p, (ids.SNAPSINGLE << 1) | 1);
        p = writeVarint(b, p, m.tick);
        p = writeVarint(b, p, delta);
      } else {
        p = writeVarint(b, p, (ids.SNAP << 1) | 1);
        p = writeVarint(b, p, m.tick);
        p = writeVarint(b, p, delta);
        p = writeVarint(b, p, m.numParts);
        p = writeVarint(b, p, m.part);
      }
      p = writeVarint(b, p, m.crc);
      p = writeVarint(b, p, data.length);
      b.set(data, p);
      p += data.length;
    }
    this.at = (p + 7) & ~7;
    return b.subarray(start, p);
  }
}

/** Per-client state. */
export class ClientSnapState {
  rate: SnapRate = 'INIT';
  lastAck = -1;
  readonly sent = new SnapshotStorage();
}

/** Produces snapshot messages for any number of clients: the family's server side (`produce`). */
export class SnapshotProducer {
  readonly version: TwVersion;
  readonly policy: Readonly<SnapPolicy>;
  private readonly slice: SliceOptions;
  private readonly clients = new Map<number, ClientSnapState>();
  private readonly packer = new DeltaPacker();
  private readonly writer = new MessageWriter();
  private readonly limits: Readonly<TwLimits>;

  constructor(version: TwVersion, opts: ProducerOptions = {}) {
    this.version = version;
    this.limits = resolveTwLimits(opts.limits);
    this.policy = Object.freeze({ ...DEFAULT_SNAP_POLICY, ...opts.policy });
    this.slice = { partSize: opts.partSize, maxParts: opts.maxParts };
  }

  /** A client entered the game (rate INIT, nothing acknowledged). */
  addClient(id: number): ClientSnapState {
    const c = new ClientSnapState();
    this.clients.set(id, c);
    return c;
  }
  removeClient(id: number): void {
    this.clients.delete(id);
  }
  client(id: number): ClientSnapState | undefined {
    return this.clients.get(id);
  }

  /** NETMSG_INPUT arrived with `ackTick` (§13.2): remember it; an ack > 0 switches to FULL. */
  onInput(id: number, ackTick: number): void {
    const c = this.clients.get(id) ?? this.addClient(id);
    c.lastAck = ackTick;
    if (ackTick > 0) c.rate = 'FULL';
    if (this.policy.purgeBeforeAck && ackTick >= 0) c.sent.purgeBefore(ackTick);
  }

  /** True when a snapshot is due for this client on `tick` under its rate. */
  due(id: number, tick: number): boolean {
    const c = this.clients.get(id);
    if (c === undefined) return false;
    if (tick % this.policy.snapEvery !== 0) return false;
    if (c.rate === 'INIT' && tick % this.policy.initEvery !== 0) return false;
    if (c.rate === 'RECOVER' && tick % this.policy.recoverEvery !== 0) return false;
    return true;
  }

  /**
   * The messages for client `id` at `tick` with world state `snap`, or null when
   * no snapshot is due under the policy (pass `force` to ignore the rate).
   */
  produce(id: number, tick: number, snap: Snapshot, force = false): ProducedSnapshot | null {
    const c = this.clients.get(id) ?? this.addClient(id);
    if (!force && !this.due(id, tick)) return null;
    this.checkLimits(snap);
    c.sent.purgeBefore(tick - this.policy.retentionTicks);
    c.sent.set(tick, snap);
    // only an acknowledged tick before this one can be the base: a later one would make a negative delta
    let base = c.lastAck >= 0 && c.lastAck < tick ? c.sent.get(c.lastAck) : undefined;
    let deltaTick = c.lastAck;
    if (base === undefined) {
      base = Snapshot.EMPTY;
      deltaTick = -1;
      if (c.rate === 'FULL') c.rate = 'RECOVER';
    }
    if (base !== Snapshot.EMPTY && sizeChanged(base, snap)) {
      // An item kept its key but changed size: not expressible as a diff (§8.3).
      // Send a full snapshot instead; it is always valid.
      base = Snapshot.EMPTY;
      deltaTick = -1;
    }
    return this.encode(tick, deltaTick, base, snap);
  }

  /** The old name of `produce`. */
  snap(id: number, tick: number, snap: Snapshot, force = false): ProducedSnapshot | null {
    return this.produce(id, tick, snap, force);
  }

  /** Encode `snap` as a delta against `base` (stored as `deltaTick`), bypassing the policy. */
  encode(tick: number, deltaTick: number, base: Snapshot, snap: Snapshot): ProducedSnapshot {
    // (ticks the messages carry as int32 varints, as the decoder reads them back)
    checkTicks(tick, deltaTick);
    this.checkLimits(snap);
    const packed = this.packer.pack(base, snap, STATIC_SIZES[this.version]);
    const crc = snap.crc();
    const messages = sliceSnapshot(tick, deltaTick, crc, packed, this.slice);
    const bytes: Uint8Array[] = [];
    for (let i = 0; i < messages.length; i++) bytes.push(this.writer.write(messages[i]!, this.version));
    return new Produced(tick, deltaTick, crc, packed, messages, bytes);
  }

  /** EncodeError when `snap` is past the limits a receiver accepts (it would refuse the messages). */
  private checkLimits(snap: Snapshot): void {
    const { twMaxItems, twMaxSnapshotSize } = this.limits;
    if (snap.numItems > twMaxItems) throw new EncodeError('items', `${snap.numItems} items, more than twMaxItems (${twMaxItems})`);
    if (snap.byteSize > twMaxSnapshotSize)
      throw new EncodeError('items', `snapshot of ${snap.byteSize} bytes, more than twMaxSnapshotSize (${twMaxSnapshotSize})`);
  }
}

/** True when some key is in both snapshots with different sizes. */
export function sizeChanged(from: Snapshot, to: Snapshot): boolean {
  for (let i = 0; i < to.numItems; i++) {
    const j = from.indexOf(to.keys[i]!);
    if (j >= 0 && from.size(j) !== to.size(i)) return true;
  }
  return false;
}

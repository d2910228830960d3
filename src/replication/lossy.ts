/**
 * A seeded lossy link for tests and benchmarks: loss, duplication, reordering
 * and latency, measured in ticks. Deterministic for a given seed.
 */
export interface LossyOptions {
  /** Probability that a packet is dropped (0..1). */
  loss?: number;
  /** Probability that a delivered packet is delivered twice. */
  duplicate?: number;
  /** Probability that a packet gets extra delay (and so may overtake or be overtaken). */
  reorder?: number;
  /** Base latency in ticks (default 0: delivered at the next `deliver`). */
  latency?: number;
  /** Extra delay in ticks for reordered packets (default 1..3). */
  jitter?: number;
  seed?: number;
}

/** mulberry32; state lives in the link, not the module. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let x = s;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

export class LossyLink<T = Uint8Array> {
  private readonly rand: () => number;
  /**
   * In flight, in send order: the tick each arrives at and the message, the
   * first `n` slots of two arrays that never shrink (a link in a loop makes no
   * garbage but the arrays `deliver` returns).
   */
  private readonly at: number[] = [];
  private readonly msg: (T | undefined)[] = [];
  private n = 0;
  private now = 0;
  readonly stats = { sent: 0, dropped: 0, duplicated: 0, delivered: 0 };
  opts: Required<LossyOptions>;

  constructor(opts: LossyOptions = {}) {
    this.opts = { loss: 0, duplicate: 0, reorder: 0, latency: 0, jitter: 3, seed: 1, ...opts };
    this.rand = prng(this.opts.seed);
  }

  /** Change loss etc. on the fly (e.g. restore the link). */
  configure(opts: Partial<LossyOptions>): void {
    this.opts = { ...this.opts, ...opts };
  }

  send(msg: T): void {
    this.stats.sent++;
    if (this.rand() < this.opts.loss) {
      this.stats.dropped++;
      return;
    }
    const copies = this.rand() < this.opts.duplicate ? 2 : 1;
    if (copies === 2) this.stats.duplicated++;
    for (let i = 0; i < copies; i++) {
      let at = this.now + this.opts.latency;
      if (this.rand() < this.opts.reorder) at += 1 + Math.floor(this.rand() * this.opts.jitter);
      this.at[this.n] = at;
      this.msg[this.n++] = msg;
    }
  }

  /** Advance one tick and return what arrives now (in arrival order). */
  deliver(): T[] {
    const now = this.now++;
    // what is due, in send order; the rest stays in flight in order (one pass)
    const at = this.at;
    const msg = this.msg;
    const n = this.n;
    const due: T[] = [];
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (at[i]! <= now) due.push(msg[i]!);
      else {
        at[k] = at[i]!;
        msg[k++] = msg[i];
      }
    }
    if (due.length === 0) return due;
    // (the slots left behind let go of their messages)
    msg.fill(undefined, k, n);
    this.n = k;
    // packets due in the same tick arrive in a random order
    for (let i = due.length - 1; i > 0; i--) {
      const j = Math.floor(this.rand() * (i + 1));
      const x = due[i]!;
      due[i] = due[j]!;
      due[j] = x;
    }
    this.stats.delivered += due.length;
    return due;
  }

  /** Packets in flight. */
  get inFlight(): number {
    return this.n;
  }
}

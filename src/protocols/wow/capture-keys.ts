/** Recovered key bytes of the header cipher, as weighted votes per position (capture.ts). */
import { KEY_LEN, type KeyEvidence, type WowKeyReport } from './capture-types.js';

export const WEIGHT: Record<KeyEvidence, number> = {
  'client-opcode-high': 3,
  'auth-response': 4,
  'update-payload': 4,
  'segment-end': 1,
  'client-segment-end': 1,
};

/** Vote weight from which a key byte is relied on for framing. */
export const FIRM = 3;

export class KeyBook {
  val = new Int16Array(KEY_LEN).fill(-1);
  /** Vote weight of value v at key position p: weights.get(p * 256 + v). */
  weights = new Map<number, number>();
  /** obs.get(p * 256 + v): evidence kind → count. */
  obs = new Map<number, Map<KeyEvidence, number>>();
  changed = false;
  /** Observations already counted (direction, stream offset, key position): every pass sees the same frames again. */
  private seen = new Set<string>();

  static given(key: Uint8Array): KeyBook {
    const k = new KeyBook();
    for (let i = 0; i < KEY_LEN; i++) {
      k.val[i] = key[i]!;
      k.weights.set(i * 256 + key[i]!, FIRM);
    }
    return k;
  }

  /** Known with enough weight: one strong observation or three agreeing weak ones. */
  firm(p: number): boolean {
    const v = this.val[p % KEY_LEN]!;
    return v >= 0 && (this.weights.get((p % KEY_LEN) * 256 + v) ?? 0) >= FIRM;
  }

  has(p: number): boolean {
    return this.val[p % KEY_LEN]! >= 0;
  }

  get(p: number): number {
    return this.val[p % KEY_LEN]!;
  }

  /** Set by a pass that took a size on trust: later observations count as weak. */
  weak = false;
  /** Set when a weak observation contradicted a firm byte (the pass is misframed). */
  contradicted = false;

  /** Observations made after a size taken on trust, held until a later header confirms the framing. */
  private pending: [number, number, KeyEvidence, string][] = [];

  /** A header at a firm key position read validly: the framing since the trusted size was right. */
  confirm(): void {
    const p = this.pending;
    this.pending = [];
    this.weak = false;
    for (const [pos, v, kind, where] of p) this.learn(pos, v, kind, where);
  }

  /** A header at a firm key position read as nonsense: forget what was held, learn nothing more in this pass. */
  refute(): void {
    this.pending = [];
    this.contradicted = true;
  }

  learn(pos: number, v: number, kind: KeyEvidence, where: string): void {
    if (this.contradicted) return;
    if (this.weak) {
      if (this.pending.length < 1 << 16) this.pending.push([pos, v, kind, where]);
      return;
    }
    const p = pos % KEY_LEN;
    v &= 0xff;
    const id = `${where}:${p}:${v}:${kind}`;
    if (this.seen.has(id)) return;
    this.seen.add(id);
    const wasFirm = this.firm(p);
    const w = (this.weights.get(p * 256 + v) ?? 0) + WEIGHT[kind];
    this.weights.set(p * 256 + v, w);
    let o = this.obs.get(p * 256 + v);
    if (o === undefined) this.obs.set(p * 256 + v, (o = new Map()));
    o.set(kind, (o.get(kind) ?? 0) + 1);
    const cur = this.val[p]!;
    if (cur < 0 || (cur !== v && w > (this.weights.get(p * 256 + cur) ?? 0))) {
      this.val[p] = v;
      this.changed = true;
    }
    if (!wasFirm && this.firm(p)) this.changed = true;
  }

  clone(): KeyBook {
    const k = new KeyBook();
    k.val = this.val.slice();
    k.weights = new Map(this.weights);
    k.obs = new Map([...this.obs].map(([pv, o]) => [pv, new Map(o)]));
    k.seen = new Set(this.seen);
    return k;
  }

  known(): number {
    let n = 0;
    for (const v of this.val) if (v >= 0) n++;
    return n;
  }

  report(conn: number, source: 'given' | 'recovered'): WowKeyReport {
    const evidence: Partial<Record<KeyEvidence, number>> = {};
    let conflicts = 0;
    for (const [pv, o] of this.obs) {
      for (const [kind, n] of o) {
        if (pv % 256 === this.val[pv >> 8]) evidence[kind] = (evidence[kind] ?? 0) + n;
        else conflicts += n;
      }
    }
    return {
      kind: 'key',
      conn,
      source,
      known: this.known(),
      key: Array.from(this.val, (v) => (v < 0 ? null : v)),
      evidence,
      conflicts,
      frames: 0,
      badOpcodes: 0,
    };
  }
}

// ---------------------------------------------------------------------------
// framing one direction

/**
 * Controller types per object (§8.1): what the decoder needs to remember across
 * messages to pick the RigidBody / ChildShape Update layout.
 */
import { fmix32 } from '../../core/hash.js';

/** Where the decoder looks up and records each NetObj's controller type. */
export interface ControllerTracker {
  get(netObjType: number, id: number): number | undefined;
  set(netObjType: number, id: number, controllerType: number): void;
  delete(netObjType: number, id: number): void;
}

/**
 * The controller type of every live NetObj, keyed by (NetObj type, id). Changes can be
 * journaled (`begin` / `commit` / `rollback`) so that a message that fails to decode
 * leaves the table as it was.
 */
export class ControllerTable implements ControllerTracker {
  // Open addressing with linear probing over one Int32Array of (id, meta) pairs, so
  // that a probe touches one cache line: slot i holds id tab[2i] of NetObj type
  // (tab[2i+1] & 31) with controller type (tab[2i+1] >> 8); meta 0 = empty.
  //
  // Ids come from the peer. An unkeyed hash lets a peer pick ids that all share one
  // slot, and every insert and lookup then walks one chain (65,535 Creates in one
  // message took 25 s). So the hash is keyed: one random 32-bit key per NetObj type
  // and table, then a full avalanche (murmur3's fmix32). Nothing reads the table in
  // slot order (`entries` sorts), so the key never shows in any output.
  private tab = new Int32Array(2 * 1024);
  private mask = 1023;
  /** 32 − log2(slots): the slot is the top bits of the hash. */
  private shift = 22;
  private count = 0;
  private journal: Array<[number, number, number | undefined]> | undefined;
  /** The hash key of each NetObj type (the type is 5 bits). */
  private readonly keys = new Int32Array(32);

  /**
   * `seed`: the hash key (tests); by default a random one, so that a peer cannot
   * choose ids that collide.
   */
  constructor(seed?: number) {
    let s = seed === undefined ? randomSeed() : seed | 0;
    for (let t = 0; t < 32; t++) {
      s = (s + 0x9e3779b9) | 0;
      this.keys[t] = fmix32(s);
    }
  }

  private slot(netObjType: number, id: number): number {
    return fmix32(id ^ this.keys[netObjType & 31]!) >>> this.shift;
  }

  get(netObjType: number, id: number): number | undefined {
    const tab = this.tab;
    const mask = this.mask;
    const want = netObjType | 0x80;
    const idi = id | 0;
    for (let i = this.slot(netObjType, id); ; i = (i + 1) & mask) {
      const m = tab[2 * i + 1]!;
      if (m === 0) return undefined;
      if ((m & 0xff) === want && tab[2 * i] === idi) return m >>> 8;
    }
  }

  set(netObjType: number, id: number, controllerType: number): void {
    if (this.journal !== undefined) this.journal.push([netObjType, id, this.get(netObjType, id)]);
    this.put(netObjType, id, controllerType);
  }

  private put(netObjType: number, id: number, controllerType: number): void {
    if ((this.count + 1) * 2 > this.mask) this.grow();
    const tab = this.tab;
    const mask = this.mask;
    const want = netObjType | 0x80;
    const idi = id | 0;
    for (let i = this.slot(netObjType, id); ; i = (i + 1) & mask) {
      const m = tab[2 * i + 1]!;
      if (m === 0) {
        tab[2 * i] = idi;
        tab[2 * i + 1] = want | (controllerType << 8);
        this.count++;
        return;
      }
      if ((m & 0xff) === want && tab[2 * i] === idi) {
        tab[2 * i + 1] = want | (controllerType << 8);
        return;
      }
    }
  }

  delete(netObjType: number, id: number): void {
    if (this.journal !== undefined) this.journal.push([netObjType, id, this.get(netObjType, id)]);
    this.remove(netObjType, id);
  }

  private remove(netObjType: number, id: number): void {
    const tab = this.tab;
    const want = netObjType | 0x80;
    const idi = id | 0;
    const mask = this.mask;
    let i = this.slot(netObjType, id);
    for (; ; i = (i + 1) & mask) {
      const m = tab[2 * i + 1]!;
      if (m === 0) return;
      if ((m & 0xff) === want && tab[2 * i] === idi) break;
    }
    // backward-shift deletion keeps probe chains intact
    tab[2 * i + 1] = 0;
    this.count--;
    for (let j = (i + 1) & mask; tab[2 * j + 1] !== 0; j = (j + 1) & mask) {
      const m = tab[2 * j + 1]!;
      const home = this.slot(m & 31, tab[2 * j]!);
      // move j into the hole at i if its home is not in (i, j]
      if ((j - home + mask + 1) & mask) {
        const distHole = (i - home + mask + 1) & mask;
        const distJ = (j - home + mask + 1) & mask;
        if (distHole < distJ) {
          tab[2 * i] = tab[2 * j]!;
          tab[2 * i + 1] = m;
          tab[2 * j + 1] = 0;
          i = j;
        }
      }
    }
  }

  private grow(): void {
    const old = this.tab;
    const slots = (this.mask + 1) * 2;
    this.tab = new Int32Array(2 * slots);
    this.mask = slots - 1;
    this.shift--;
    this.count = 0;
    for (let i = 1; i < old.length; i += 2) {
      const m = old[i]!;
      if (m !== 0) this.put(m & 31, old[i - 1]! >>> 0, m >>> 8);
    }
  }

  begin(): void {
    this.journal = [];
  }
  commit(): void {
    this.journal = undefined;
  }
  rollback(): void {
    const j = this.journal;
    this.journal = undefined;
    if (j === undefined) return;
    for (let i = j.length - 1; i >= 0; i--) {
      const [t, id, v] = j[i]!;
      if (v === undefined) this.remove(t, id);
      else this.put(t, id, v);
    }
  }
  /** Every entry as `[netObjType, id, controllerType]`, sorted. */
  entries(): Array<[number, number, number]> {
    const out: Array<[number, number, number]> = [];
    const tab = this.tab;
    for (let i = 1; i < tab.length; i += 2) {
      const m = tab[i]!;
      if (m !== 0) out.push([m & 31, tab[i - 1]! >>> 0, m >>> 8]);
    }
    return out.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
  get size(): number {
    return this.count;
  }
}

// One random value per process, then a counter: a table costs no call to the random
// source, and the keys of two tables differ.
let seedBase: number | undefined;
let seedCount = 0;
function randomSeed(): number {
  if (seedBase === undefined) {
    const c = globalThis.crypto as Crypto | undefined;
    seedBase = c?.getRandomValues !== undefined ? c.getRandomValues(new Int32Array(1))[0]! : (Math.random() * 2 ** 32) | 0;
  }
  seedCount = (seedCount + 1) | 0;
  return fmix32(seedBase ^ Math.imul(seedCount, 0x2545f491));
}

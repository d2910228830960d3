// usage: tsx bench/ab/s4-floor.ts [rounds]
//
// How low can the server side of S4 (2,000 entities, 10 % move x and y each tick, 64 clients that see everything,
// acked delivery, acks back before the next tick) go in JavaScript? A sketch that does only the work acked delivery
// cannot skip, for this one schema and this one case, timed in one process beside the engine (moves through
// handles, as in `npm run bench -- replication`) and @colyseus/schema 5 (encode() + discardChanges()):
//
// - 400 sets through handle objects (f32 bits, compare, change mask, dirty list of row numbers);
// - per moved entity: compare with the published values, an undo row (tick, row, mask, old values) so that an
//   older baseline could still be served, the record (id gap in Elias gamma, change mask, each field's bit
//   difference zigzagged with a length prefix, as the engine's wire format does), and where it starts;
// - one packet, shared by every client whose baseline is the tick before (all 64 here);
// - 64 acks parsed and kept.
//
// It has none of what the engine must also do: interest, owner-only fields, the MTU and priorities, despawns,
// strings, the tick log for clients that lag, bundles, the encoding cache per baseline. It is not a server; it is a
// floor. Each side runs `perRound` ticks per round, the three alternating; CPU time per tick (process.cpuUsage),
// best of the rounds [min–max]. The client phases run untimed between ticks, as in the bench.
import { colyseus, generate, ours, type Scenario } from '../replication-sides.js';

const S4: Scenario = { name: 'S4', entities: 2000, clients: 64 };
const rounds = Number(process.argv[2] ?? 30);
const perRound = 10;
const w = generate(S4);

/** The sketch: rows of 8 doubles (working x, y; published x, y; change mask; dirty), undo ring, one arena. */
function floor(): { server(k: number): number; others(): void } {
  const N = S4.entities;
  const STRIDE = 8;
  const rows = new Float64Array(N * STRIDE);
  const f32 = new Float32Array(1);
  const u32 = new Uint32Array(f32.buffer);
  const bits = (v: number): number => {
    f32[0] = v;
    return u32[0]!;
  };
  const dirty = new Int32Array(N);
  let dirtyN = 0;
  const touch = (r: number, f: number): void => {
    rows[r + 4] = rows[r + 4]! | f;
    if (rows[r + 5] === 0) {
      rows[r + 5] = 1;
      dirty[dirtyN++] = r;
    }
  };
  class Handle {
    constructor(readonly r: number) {}
    set x(v: number) {
      const b = bits(v);
      if (rows[this.r] === b) return;
      rows[this.r] = b;
      touch(this.r, 1);
    }
    set y(v: number) {
      const b = bits(v);
      if (rows[this.r + 1] === b) return;
      rows[this.r + 1] = b;
      touch(this.r, 2);
    }
  }
  const x = w.x.slice();
  const y = w.y.slice();
  const hs: Handle[] = [];
  for (let i = 0; i < N; i++) {
    const r = i * STRIDE;
    rows[r] = rows[r + 2] = bits(x[i]!);
    rows[r + 1] = rows[r + 3] = bits(y[i]!);
    hs.push(new Handle(r));
  }
  const RC = 1 << 14;
  const utick = new Int32Array(RC);
  const urow = new Int32Array(RC);
  const umask = new Int32Array(RC);
  const uval = new Float64Array(RC * 2);
  let utail = 0;
  const arena = new Uint32Array(1 << 16);
  const recAt = new Int32Array(N);
  const recTick = new Int32Array(N);
  let t = 0;
  let packet = new Uint8Array(0);
  let packetTick = -1;
  const acked = new Int32Array(S4.clients);
  const ack = new Uint8Array(8);
  const tick = (): number => {
    t++;
    const d = dirty.subarray(0, dirtyN).sort();
    let q = 0;
    let n = 0;
    let acc = 0;
    let prev = -1;
    const put = (v: number, vn: number): void => {
      acc |= v << n;
      const e = n + vn;
      if (e >= 32) {
        arena[q++] = acc;
        acc = n === 0 ? 0 : v >>> (32 - n);
        n = e - 32;
      } else n = e;
    };
    for (let i = 0; i < dirtyN; i++) {
      const r = d[i]!;
      rows[r + 5] = 0;
      const dm = rows[r + 4]!;
      rows[r + 4] = 0;
      let m = 0;
      if (dm & 1 && rows[r] !== rows[r + 2]) m |= 1;
      if (dm & 2 && rows[r + 1] !== rows[r + 3]) m |= 2;
      if (m === 0) continue;
      const s = utail++ & (RC - 1);
      utick[s] = t;
      urow[s] = r;
      umask[s] = m;
      const id = r / STRIDE;
      const gap = id - prev;
      prev = id;
      const L = 32 - Math.clz32(gap);
      put((1 << (L - 1)) | ((gap & ((1 << (L - 1)) - 1)) << L), 2 * L);
      recAt[id] = (q << 5) + n;
      recTick[id] = t;
      put(m, 4);
      for (let f = 0; f < 2; f++) {
        if ((m & (1 << f)) === 0) continue;
        const b = rows[r + 2 + f]!;
        const v = rows[r + f]!;
        uval[s * 2 + f] = b;
        rows[r + 2 + f] = v;
        const dd = (v - b) | 0;
        const zz = ((dd << 1) ^ (dd >> 31)) >>> 0;
        const LL = 32 - Math.clz32(zz);
        if (LL <= 28) put((LL - 1) | ((zz & ~(0x80000000 >>> (32 - LL))) << 5), LL + 4);
        else {
          put(LL - 1, 5);
          put(zz & ((1 << (LL - 1)) - 1), LL - 1);
        }
      }
    }
    if (n > 0) arena[q++] = acc;
    dirtyN = 0;
    return q;
  };
  const receive = (c: number, bytes: Uint8Array): void => {
    let v = 0;
    for (let i = 5, s = 0; ; i++, s += 7) {
      const b = bytes[i]!;
      v |= (b & 0x7f) << s;
      if (b < 0x80) break;
    }
    if (v > acked[c]!) acked[c] = v;
  };
  return {
    server(k) {
      ack[5] = (t & 0x7f) | 0x80;
      ack[6] = ((t >>> 7) & 0x7f) | 0x80;
      ack[7] = t >>> 14;
      for (let c = 0; c < S4.clients; c++) receive(c, ack);
      const mv = w.moves[k % w.moves.length]!;
      for (let i = 0; i < mv.ids.length; i++) {
        const e = mv.ids[i]!;
        x[e]! += mv.dx[i]!;
        y[e]! += mv.dy[i]!;
        const h = hs[e]!;
        h.x = x[e]!;
        h.y = y[e]!;
      }
      const q = tick();
      let bytes = 0;
      for (let c = 0; c < S4.clients; c++) {
        if (acked[c] !== t - 1) throw new Error('the sketch serves only clients whose baseline is the tick before');
        if (packetTick !== t) {
          packet = new Uint8Array(12 + q * 4);
          packet.set(new Uint8Array(arena.buffer, 0, q * 4), 12);
          packetTick = t;
        }
        bytes += packet.length;
      }
      return bytes;
    },
    others() {},
  };
}

const cpu = (): number => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const sides = [
  { name: 'floor sketch', side: floor() },
  { name: 'tickwire (handles)', side: ours(S4, w, 'acked', 'handles') },
  { name: '@colyseus/schema 5', side: colyseus(S4, w) },
].map((s) => ({ ...s, k: 0, times: [] as number[] }));
const step = (s: (typeof sides)[number], timed: boolean): number => {
  const side = s.side as Partial<ReturnType<typeof ours>> & { server(k: number): number; others(): void };
  const t0 = cpu();
  side.server(s.k++);
  const dt = cpu() - t0;
  side.transport?.();
  side.client?.();
  side.others();
  return timed ? dt : 0;
};
for (const s of sides) for (let i = 0; i < 300; i++) step(s, false);
for (let r = 0; r < rounds; r++) {
  for (const s of sides) {
    let sum = 0;
    for (let i = 0; i < perRound; i++) sum += step(s, true);
    s.times.push(sum / perRound);
  }
}
const col = Math.min(...sides[2]!.times);
for (const s of sides) {
  const best = Math.min(...s.times);
  console.log(
    `${s.name.padEnd(20)} ${best.toFixed(1).padStart(6)} µs/tick [${Math.min(...s.times).toFixed(1)}–${Math.max(...s.times).toFixed(1)}]  × Colyseus ${(best / col).toFixed(2)}`,
  );
}

/**
 * The two sides of the replication bench on the same worlds: tickwire's
 * replication engine and @colyseus/schema 5. Each side applies the same
 * pre-generated moves, produces every client's bytes (server phase), and
 * decodes them (client phase); the bench times the phases separately.
 */
import { schema, t as ct, Encoder, Decoder, StateView } from '@colyseus/schema';
import { t, defineEntity, LossyLink, ReplicationClient, ReplicationServer } from '../src/replication/index.js';
import type { EntityHandle } from '../src/replication/index.js';
import { rng } from '../test/helpers/rng.js';

export const Unit = defineEntity('Unit', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(16) });

export interface Scenario {
  name: string;
  entities: number;
  clients: number;
  /** Interest radius (S3), or none: every client sees everything. */
  radius?: number;
  loss?: number;
  /** One-way latency in ticks for acks and packets (0: acks arrive before the next tick). */
  latency?: number;
}

/** The world both sides replicate: positions, and per tick which entities move and by how much. */
export interface WorldGen {
  x: Float64Array;
  y: Float64Array;
  hp: Uint8Array;
  /** Client viewpoints (S3). */
  cx: Float64Array;
  cy: Float64Array;
  moves: { ids: Int32Array; dx: Float64Array; dy: Float64Array }[];
}

export function generate(s: Scenario, seed = 1, ticks = 240): WorldGen {
  const r = rng(seed);
  const n = s.entities;
  const x = Float64Array.from({ length: n }, () => r() * 1000);
  const y = Float64Array.from({ length: n }, () => r() * 1000);
  const hp = Uint8Array.from({ length: n }, () => (r() * 256) | 0);
  const cx = Float64Array.from({ length: s.clients }, () => r() * 1000);
  const cy = Float64Array.from({ length: s.clients }, () => r() * 1000);
  const moves = [];
  const k = Math.round(n / 10);
  for (let i = 0; i < ticks; i++) {
    const chosen = new Set<number>();
    while (chosen.size < k) chosen.add(Math.floor(r() * n));
    const ids = Int32Array.from([...chosen].sort((a, b) => a - b));
    moves.push({ ids, dx: Float64Array.from(ids, () => r() * 2 - 1), dy: Float64Array.from(ids, () => r() * 2 - 1) });
  }
  return { x, y, hp, cx, cy, moves };
}

export interface Side {
  /** Apply tick k's moves and produce every client's bytes (and take the acks that arrived); returns total bytes produced. */
  server(k: number): number;
  /** Carry packets and acks over the (simulated) links: not timed. */
  transport(): void;
  /** The other clients' side (acks only), and client 0's ack over its link: not timed. */
  others(): void;
  /** Client 0's packets so far (the first is its initial full state). */
  capture: Uint8Array[];
  /** A fresh mirror that applies `packets[0]`; returns a function that applies the rest (timed by the caller). */
  replay(packets: Uint8Array[]): () => number;
  /** Decode what the server phase produced; returns the number of decodes done. */
  client(): number;
}

function near(w: WorldGen, c: number, x: number, y: number, r: number): boolean {
  const dx = x - w.cx[c]!;
  const dy = y - w.cy[c]!;
  return dx * dx + dy * dy <= r * r;
}

/**
 * Clients other than client 0 in the bench: they apply exactly the packets a
 * ReplicationClient would (newer tick, baseline held) and ack them, without
 * decoding the records — in a real deployment each client is its own process,
 * so only client 0's decode time (and heap) is what a client pays.
 */
class AckOnlyClient {
  private latest = 0;
  /** Applied ticks of the last 32 (bit i: tick latest - i). */
  private held = 0;
  constructor(private readonly acks: AckCache) {}
  receive(p: Uint8Array): void {
    if (p[0] !== 0xb3) {
      this.part(p, 0);
      return;
    }
    // a bundle: its parts in order (each framed as the bundle magic, a varint length, then a state packet)
    for (let i = 1; i < p.length; i++) {
      let len = 0;
      for (let s = 0; ; s += 7) {
        const b = p[i++]!;
        len += (b & 0x7f) * 2 ** s;
        if (b < 0x80) break;
      }
      this.part(p, i);
      i += len;
    }
  }
  /** The state packet at `at` in `p`. */
  private part(p: Uint8Array, at: number): void {
    // the header's tick and baseAgo varints, after magic, hash and session (readPacketHeader without its result object:
    // these clients stand for other processes, whose garbage is not this process's; one server, one session)
    let i = at + 9;
    let tick = 0;
    for (let s = 0; ; s += 7) {
      const b = p[i++]!;
      tick += (b & 0x7f) * 2 ** s;
      if (b < 0x80) break;
    }
    let ago = 0;
    for (let s = 0; ; s += 7) {
      const b = p[i++]!;
      ago += (b & 0x7f) * 2 ** s;
      if (b < 0x80) break;
    }
    if (tick <= this.latest) return;
    const back = this.latest - (tick - ago);
    if (ago !== 0 && (back < 0 || back >= 32 || ((this.held >>> back) & 1) === 0)) return;
    const shift = tick - this.latest;
    this.held = shift >= 32 ? 1 : ((this.held << shift) | 1) >>> 0;
    this.latest = tick;
  }
  ack(): Uint8Array {
    return this.acks.get(this.latest);
  }
}

/** The ack bytes of a tick, made once and shared by the ack-only clients. */
class AckCache {
  private tick = -1;
  private bytes = new Uint8Array(0);
  private readonly older = new Map<number, Uint8Array>();
  constructor(
    private readonly hash: number,
    private readonly session: number,
  ) {}
  get(tick: number): Uint8Array {
    if (tick === this.tick) return this.bytes;
    const hit = this.older.get(tick);
    if (hit !== undefined) return hit;
    const a = new Uint8Array(14);
    a[0] = 0xb2;
    new DataView(a.buffer).setUint32(1, this.hash, true);
    new DataView(a.buffer).setUint32(5, this.session, true);
    let n = tick;
    let i = 9;
    while (n >= 0x80) {
      a[i++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    a[i++] = n;
    const b = a.slice(0, i);
    if (tick > this.tick) {
      if (this.tick >= 0) this.older.set(this.tick, this.bytes);
      this.tick = tick;
      this.bytes = b;
      for (const k of this.older.keys()) {
        if (k > tick - 40) break;
        this.older.delete(k);
      }
    }
    return b;
  }
}

/** Tick k's moves of `w` on our server: positions `x`, `y` (updated) of the entities `ids`. */
export function applyMoves(server: ReplicationServer, w: WorldGen, k: number, x: Float64Array, y: Float64Array, ids: number[]): void {
  const m = w.moves[k % w.moves.length]!;
  for (let i = 0; i < m.ids.length; i++) {
    const e = m.ids[i]!;
    x[e]! += m.dx[i]!;
    y[e]! += m.dy[i]!;
    server.set(ids[e]!, { x: x[e]!, y: y[e]! });
  }
}

/** Tick k's moves of `w` through entity handles (`server.handle`), as the Colyseus side assigns its schema objects' fields. */
export function applyMovesByHandle(w: WorldGen, k: number, x: Float64Array, y: Float64Array, hs: EntityHandle<typeof Unit.fields>[]): void {
  const m = w.moves[k % w.moves.length]!;
  for (let i = 0; i < m.ids.length; i++) {
    const e = m.ids[i]!;
    x[e]! += m.dx[i]!;
    y[e]! += m.dy[i]!;
    const h = hs[e]!;
    h.x = x[e]!;
    h.y = y[e]!;
  }
}

/** Tick k's moves of `w` written into the server's typed-array columns (`server.columns`), by row. */
export function applyMovesByColumn(
  w: WorldGen,
  k: number,
  x: Float64Array,
  y: Float64Array,
  cols: { x: Float32Array; y: Float32Array },
  rows: Int32Array,
): void {
  const m = w.moves[k % w.moves.length]!;
  const cx = cols.x;
  const cy = cols.y;
  for (let i = 0; i < m.ids.length; i++) {
    const e = m.ids[i]!;
    x[e]! += m.dx[i]!;
    y[e]! += m.dy[i]!;
    const r = rows[e]!;
    cx[r] = x[e]!;
    cy[r] = y[e]!;
  }
}

/** How our side changes the moved entities: typed-array columns (default), entity handles, or `set(id, { x, y })`. */
export type SetMode = 'columns' | 'handles' | 'object';

/** tickwire/replication (`REPL_SET=handles` or `object` overrides `mode`). */
export function ours(s: Scenario, w: WorldGen, delivery: 'acked' | 'reliable', mode: SetMode = 'columns'): Side {
  const server = new ReplicationServer({ entities: [Unit], delivery, mtu: 1 << 20 });
  const x = w.x.slice();
  const y = w.y.slice();
  const ids: number[] = [];
  for (let i = 0; i < s.entities; i++) ids.push(server.spawn(Unit, { x: x[i]!, y: y[i]!, hp: w.hp[i]!, name: `unit${i}` }));
  const how = (process.env.REPL_SET as SetMode | undefined) ?? mode;
  const handles = how === 'handles' ? ids.map((id) => server.handle(Unit, id)) : [];
  const cols = how === 'columns' ? server.columns(Unit) : undefined;
  const rows = Int32Array.from(ids, (id) => (cols === undefined ? 0 : server.rowOf(id)));
  const clients: ReplicationClient<readonly [typeof Unit]>[] = [];
  const others: AckOnlyClient[] = [];
  const ackCache = new AckCache(server.hash, server.session);
  const down: LossyLink[] = [];
  const up: LossyLink[] = [];
  for (let c = 0; c < s.clients; c++) {
    const r = s.radius;
    // the viewpoints do not move: interest re-run for moved entities only, as the Colyseus side updates its StateViews
    server.addClient(c, r === undefined ? {} : { interest: (_id, v) => near(w, c, v.x as number, v.y as number, r), interestEvery: 'change' });
    if (c === 0) clients.push(new ReplicationClient({ entities: [Unit] as const }));
    else others.push(new AckOnlyClient(ackCache));
    const link = { loss: s.loss ?? 0, latency: s.latency ?? 0, seed: 1000 + c };
    down.push(new LossyLink(link));
    up.push(new LossyLink({ ...link, seed: 5000 + c }));
  }
  const inbox: Uint8Array[][] = down.map(() => []);
  const outbox: Uint8Array[] = [];
  const acks: Uint8Array[][] = down.map(() => []);
  const capture: Uint8Array[] = [];
  let ack0: Uint8Array = new Uint8Array(0);
  const prime = (): void => {
    server.tick();
    for (let c = 0; c < s.clients; c++) {
      const cl = c === 0 ? clients[0]! : others[c - 1]!;
      const p = server.packetFor(c);
      if (c === 0) capture.push(p);
      cl.receive(p);
      server.receive(c, cl.ack());
    }
  };
  prime();
  return {
    server(k) {
      for (let c = 0; c < s.clients; c++) for (const a of acks[c]!) server.receive(c, a);
      if (cols !== undefined) applyMovesByColumn(w, k, x, y, cols, rows);
      else if (how === 'object') applyMoves(server, w, k, x, y, ids);
      else applyMovesByHandle(w, k, x, y, handles);
      server.tick();
      let bytes = 0;
      for (let c = 0; c < s.clients; c++) {
        const p = server.packetFor(c);
        bytes += p.length;
        outbox[c] = p;
      }
      return bytes;
    },
    transport() {
      for (let c = 0; c < s.clients; c++) {
        down[c]!.send(outbox[c]!);
        inbox[c] = down[c]!.deliver();
      }
    },
    client() {
      // client 0 decodes for real (timed per decode)
      let n = 0;
      const cl = clients[0]!;
      for (const p of inbox[0]!) {
        capture.push(p);
        const res = cl.receive(p);
        for (const id of res.changed.keys()) void cl.entities.get(id)!.values; // the user reads the new values
        for (const id of res.spawned) void cl.entities.get(id)!.values;
        n++;
      }
      // the ack is the client's to make; carrying it over the simulated link is not (see others)
      ack0 = cl.ack();
      return n;
    },
    capture,
    replay(packets) {
      const cl = new ReplicationClient({ entities: [Unit] as const });
      cl.receive(packets[0]!);
      return () => {
        for (let i = 1; i < packets.length; i++) {
          const res = cl.receive(packets[i]!);
          for (const id of res.changed.keys()) void cl.entities.get(id)!.values;
          for (const id of res.spawned) void cl.entities.get(id)!.values;
        }
        return packets.length - 1;
      };
    },
    others() {
      up[0]!.send(ack0);
      acks[0] = up[0]!.deliver();
      for (let c = 1; c < s.clients; c++) {
        const o = others[c - 1]!;
        for (const p of inbox[c]!) o.receive(p);
        up[c]!.send(o.ack());
        acks[c] = up[c]!.deliver();
      }
    },
  };
}

/** @colyseus/schema 5 over its reliable channel: encode() + discardChanges() per tick, StateView per client for S3. */
export function colyseus(s: Scenario, w: WorldGen): Side {
  Encoder.BUFFER_SIZE = 4 * 1024 * 1024;
  const E = schema({ x: ct.float32(), y: ct.float32(), hp: ct.uint8(), name: ct.string() }, 'Unit');
  const filtered = s.radius !== undefined;
  const S = filtered ? schema({ entities: ct.map(E).view() }, 'World') : schema({ entities: ct.map(E) }, 'World');
  const state = new S();
  const ents: InstanceType<typeof E>[] = [];
  const x = w.x.slice();
  const y = w.y.slice();
  for (let i = 0; i < s.entities; i++) {
    const e = new E();
    e.x = x[i]!;
    e.y = y[i]!;
    e.hp = w.hp[i]!;
    e.name = `unit${i}`;
    state.entities.set(String(i), e);
    ents.push(e);
  }
  const encoder = new Encoder(state);
  const views: StateView[] = [];
  const inView: Uint8Array[] = [];
  const r = s.radius ?? 0;
  // one decoder per distinct stream: all clients get the same bytes without views
  const decoders = Array.from({ length: filtered ? s.clients : 1 }, () => new Decoder(new S()));
  const capture: Uint8Array[] = [];
  if (filtered) {
    const it = { offset: 0 };
    encoder.encodeAll(it);
    const shared = it.offset;
    for (let c = 0; c < s.clients; c++) {
      const v = new StateView();
      const iv = new Uint8Array(s.entities);
      for (let i = 0; i < s.entities; i++) {
        if (near(w, c, x[i]!, y[i]!, r)) {
          v.add(ents[i]!);
          iv[i] = 1;
        }
      }
      views.push(v);
      inView.push(iv);
      const b = encoder.encodeAllView(v, shared, it).slice();
      if (c === 0) capture.push(b);
      decoders[c]!.decode(b);
    }
  } else {
    const b = encoder.encodeAll().slice();
    capture.push(b);
    decoders[0]!.decode(b);
  }
  encoder.discardChanges();
  let outbox: Uint8Array[] = [];
  return {
    server(k) {
      const m = w.moves[k % w.moves.length]!;
      for (let i = 0; i < m.ids.length; i++) {
        const e = m.ids[i]!;
        x[e]! += m.dx[i]!;
        y[e]! += m.dy[i]!;
        const o = ents[e]!;
        o.x = x[e]!;
        o.y = y[e]!;
      }
      if (!filtered) {
        const b = encoder.encode().slice(); // broadcast: the same bytes to every client
        encoder.discardChanges();
        outbox = [b];
        return b.length * s.clients; // the same bytes go to every client
      }
      for (let c = 0; c < s.clients; c++) {
        const iv = inView[c]!;
        for (let i = 0; i < m.ids.length; i++) {
          const e = m.ids[i]!;
          const inside = near(w, c, x[e]!, y[e]!, r);
          if (inside && iv[e] === 0) {
            views[c]!.add(ents[e]!);
            iv[e] = 1;
          } else if (!inside && iv[e] === 1) {
            views[c]!.remove(ents[e]!);
            iv[e] = 0;
          }
        }
      }
      const it = { offset: 0 };
      encoder.encode(it);
      const shared = it.offset;
      let bytes = 0;
      outbox = [];
      for (let c = 0; c < s.clients; c++) {
        const b = encoder.encodeView(views[c]!, shared, it).slice();
        bytes += b.length;
        outbox.push(b);
      }
      encoder.discardChanges();
      return bytes;
    },
    transport() {},
    others() {},
    client() {
      // client 0 decodes (the others would decode the same or their own view's bytes in their own process)
      capture.push(outbox[0]!);
      decoders[0]!.decode(outbox[0]!);
      return 1;
    },
    capture,
    replay(packets) {
      const d = new Decoder(new S());
      d.decode(packets[0]!);
      return () => {
        for (let i = 1; i < packets.length; i++) d.decode(packets[i]!);
        return packets.length - 1;
      };
    },
  };
}

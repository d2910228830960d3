/**
 * tickwire/replication over UDP (node:dgram), acked delivery.
 *
 *   node --import tsx examples/udp.ts server [port]   # a world of moving ships, 20 ticks/s
 *   node --import tsx examples/udp.ts client [port]   # mirrors it, prints a line per second
 *   node --import tsx examples/udp.ts demo            # both in one process, 20% of packets dropped
 *   node --import tsx examples/udp.ts hostile         # garbage and silent peers: what the server keeps
 *
 * Everything binds to 127.0.0.1. The engine is transport-free: this file only
 * moves its bytes. A client's first datagram, a valid ack (of tick 0),
 * registers it; anything else from an unknown address is dropped, so a stray
 * or hostile datagram costs no state and gets nothing back. A client silent
 * for `peerTimeoutMs` (default 5 s) is removed, and at most `maxPeers` (default
 * 256) are served. UDP source addresses can be forged: an ack with a forged
 * address makes the server send packets there until the time-out. A game on
 * the open Internet would add a handshake with a token the address must echo
 * (as Teeworlds 0.7 does) before registering it.
 * `demo` and `hostile` end by printing `RESULT {json}` (the tests start them in
 * a loopback-only network namespace).
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../src/replication/index.js';

export const Ship = defineEntity('Ship', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(16) });
export const entities = [Ship] as const;

/** A UDP server: one ReplicationServer, clients keyed by address:port. */
export function udpServer(
  port: number,
  opts: { ships?: number; tickMs?: number; drop?: number; peerTimeoutMs?: number; maxPeers?: number } = {},
): {
  socket: Socket;
  server: ReplicationServer;
  /** Clients served now, and datagrams dropped (from unknown addresses that were no ack, or acks that did not read). */
  stats(): { peers: number; dropped: number };
  pause(): void;
  flush(): void;
  stop(): void;
} {
  const server = new ReplicationServer({ entities });
  const socket = createSocket('udp4');
  const peers = new Map<string, RemoteInfo>();
  /** When each client last sent an ack that read. */
  const seen = new Map<string, number>();
  const timeout = opts.peerTimeoutMs ?? 5000;
  const maxPeers = opts.maxPeers ?? 256;
  let dropped = 0;
  const ids: number[] = [];
  for (let i = 0; i < (opts.ships ?? 50); i++) ids.push(server.spawn(Ship, { x: i * 10, y: 0, hp: 100, name: `ship${i}` }));
  let n = 0;
  socket.on('message', (msg, from) => {
    const key = `${from.address}:${from.port}`;
    const known = peers.has(key);
    if (!known) {
      if (peers.size >= maxPeers) {
        dropped++;
        return;
      }
      server.addClient(key);
    }
    try {
      server.receive(key, new Uint8Array(msg));
    } catch {
      // (not an ack: from an unknown address it registers nothing; a known client's bad datagram is only counted)
      dropped++;
      if (!known) server.removeClient(key);
      return;
    }
    if (!known) peers.set(key, from);
    seen.set(key, Date.now());
  });
  const timer = setInterval(() => {
    n++;
    for (const id of ids) if ((id + n) % 5 === 0) server.set(id, { x: (server.get(id)!.values.x as number) + 0.25, y: Math.sin(n / 10) * 100 });
    if (n % 40 === 0) server.set(ids[n % ids.length]!, { hp: n % 256 });
    server.tick();
    const now = Date.now();
    for (const [key, peer] of peers) {
      if (now - seen.get(key)! > timeout) {
        // silent too long (gone, or never there: a forged address)
        peers.delete(key);
        seen.delete(key);
        server.removeClient(key);
        continue;
      }
      if (opts.drop !== undefined && Math.random() < opts.drop) continue; // simulated loss
      socket.send(server.packetFor(key), peer.port, peer.address);
    }
  }, opts.tickMs ?? 50);
  socket.bind(port, '127.0.0.1');
  return {
    socket,
    server,
    stats: () => ({ peers: peers.size, dropped }),
    pause: () => clearInterval(timer),
    /** Send every client this tick's packet again, without loss (the same bytes: packetFor is idempotent within a tick). */
    flush: () => {
      for (const [key, peer] of peers) socket.send(server.packetFor(key), peer.port, peer.address);
    },
    stop: () => {
      clearInterval(timer);
      socket.close();
    },
  };
}

/** A UDP client: applies packets, acks each applied one. */
export function udpClient(
  port: number,
  onPacket?: (c: ReplicationClient<typeof entities>) => void,
): { socket: Socket; client: ReplicationClient<typeof entities>; stop(): void } {
  const client = new ReplicationClient({ entities });
  const socket = createSocket('udp4');
  socket.on('message', (msg) => {
    try {
      client.receive(new Uint8Array(msg));
    } catch (e) {
      console.error(`bad packet: ${(e as Error).message}`);
      return;
    }
    socket.send(client.ack(), port, '127.0.0.1');
    onPacket?.(client);
  });
  socket.bind(0, '127.0.0.1', () => socket.send(client.ack(), port, '127.0.0.1'));
  return { socket, client, stop: () => socket.close() };
}

async function demo(): Promise<void> {
  const port = 18410;
  const s = udpServer(port, { tickMs: 10, drop: 0.2 });
  const c = udpClient(port);
  await new Promise((r) => setTimeout(r, 1500));
  s.pause(); // stop ticking, then resend the last tick's packet without loss
  s.flush();
  await new Promise((r) => setTimeout(r, 200));
  s.stop();
  c.stop();
  const server = s.server;
  let equal = 0;
  let differ = 0;
  for (const [id, e] of c.client.entities) {
    const want = server.get(id)!.values;
    if (JSON.stringify(want) === JSON.stringify(e.values)) equal++;
    else differ++;
  }
  console.log(`RESULT ${JSON.stringify({ serverTick: server.currentTick, clientTick: c.client.tick, entities: c.client.entities.size, equal, differ })}`);
}

/**
 * What the server keeps when 200 addresses send it garbage, and 20 send one valid ack and then fall silent:
 * after the garbage, only the clients that acked; after the time-out, none.
 */
async function hostile(): Promise<void> {
  const port = 18420;
  const s = udpServer(port, { tickMs: 10, peerTimeoutMs: 300 });
  const sockets: Socket[] = [];
  const send = (bytes: Uint8Array): Promise<void> =>
    new Promise((resolve) => {
      const so = createSocket('udp4');
      sockets.push(so);
      so.on('message', () => {});
      so.bind(0, '127.0.0.1', () => so.send(bytes, port, '127.0.0.1', () => resolve()));
    });
  for (let i = 0; i < 200; i++) await send(Uint8Array.from({ length: 1 + (i % 40) }, (_, k) => (i * 31 + k * 7) & 255));
  const ack = new ReplicationClient({ entities }).ack();
  for (let i = 0; i < 20; i++) await send(ack);
  await new Promise((r) => setTimeout(r, 100));
  const afterGarbage = s.stats();
  await new Promise((r) => setTimeout(r, 600));
  const afterTimeout = s.stats();
  s.stop();
  for (const so of sockets) so.close();
  console.log(`RESULT ${JSON.stringify({ afterGarbage, afterTimeout })}`);
}

const mode = process.argv[2];
const port = Number(process.argv[3] ?? 18400);
if (mode === 'server') {
  udpServer(port);
  console.log(`serving on udp://127.0.0.1:${port}`);
} else if (mode === 'client') {
  let last = 0;
  udpClient(port, (c) => {
    if (Date.now() - last > 1000) {
      last = Date.now();
      console.log(`tick ${c.tick}: ${c.entities.size} ships, ship 1 at x=${c.entities.get(1)?.values.x}`);
    }
  });
} else if (mode === 'demo') await demo();
else if (mode === 'hostile') await hostile();

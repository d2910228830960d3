/**
 * tickwire/replication over UDP (node:dgram), acked delivery.
 *
 *   node --import tsx examples/udp.ts server [port]   # a world of moving ships, 20 ticks/s
 *   node --import tsx examples/udp.ts client [port]   # mirrors it, prints a line per second
 *   node --import tsx examples/udp.ts demo            # both in one process, 20% of packets dropped
 *
 * Everything binds to 127.0.0.1. The engine is transport-free: this file only
 * moves its bytes. A client's first datagram (an ack of tick 0) registers it.
 * `demo` ends by printing `RESULT {json}` (the tests start it in a
 * loopback-only network namespace).
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { t, defineEntity, ReplicationClient, ReplicationServer } from '../src/replication/index.js';

export const Ship = defineEntity('Ship', { x: t.f32(), y: t.f32(), hp: t.u8(), name: t.string(16) });
export const entities = [Ship] as const;

/** A UDP server: one ReplicationServer, clients keyed by address:port. */
export function udpServer(
  port: number,
  opts: { ships?: number; tickMs?: number; drop?: number } = {},
): { socket: Socket; server: ReplicationServer; pause(): void; flush(): void; stop(): void } {
  const server = new ReplicationServer({ entities });
  const socket = createSocket('udp4');
  const peers = new Map<string, RemoteInfo>();
  const ids: number[] = [];
  for (let i = 0; i < (opts.ships ?? 50); i++) ids.push(server.spawn(Ship, { x: i * 10, y: 0, hp: 100, name: `ship${i}` }));
  let n = 0;
  socket.on('message', (msg, from) => {
    const key = `${from.address}:${from.port}`;
    if (!peers.has(key)) {
      peers.set(key, from);
      server.addClient(key);
    }
    try {
      server.receive(key, new Uint8Array(msg));
    } catch (e) {
      console.error(`bad ack from ${key}: ${(e as Error).message}`);
    }
  });
  const timer = setInterval(() => {
    n++;
    for (const id of ids) if ((id + n) % 5 === 0) server.set(id, { x: (server.get(id)!.values.x as number) + 0.25, y: Math.sin(n / 10) * 100 });
    if (n % 40 === 0) server.set(ids[n % ids.length]!, { hp: n % 256 });
    server.tick();
    for (const [key, peer] of peers) {
      if (opts.drop !== undefined && Math.random() < opts.drop) continue; // simulated loss
      socket.send(server.packetFor(key), peer.port, peer.address);
    }
  }, opts.tickMs ?? 50);
  socket.bind(port, '127.0.0.1');
  return {
    socket,
    server,
    pause: () => clearInterval(timer),
    /** Send every client this tick's packet again, without loss (the same bytes: packetFor is idempotent within a tick). */
    flush: () => {
      for (const [key, peer] of peers) socket.send(server.packetFor(key), peer.port, peer.address);
    },
    stop: () => (clearInterval(timer), socket.close()),
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

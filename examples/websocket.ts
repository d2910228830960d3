/**
 * tickwire/replication over WebSocket, reliable delivery (the baseline of each
 * packet is the previous packet sent; no acknowledgements).
 *
 *   node --import tsx examples/websocket.ts server [port]   # a world of moving ships, 20 ticks/s
 *   node --import tsx examples/websocket.ts client [port]   # mirrors it, prints a line per second
 *   node --import tsx examples/websocket.ts demo            # server and two clients (one joins late) in one process
 *
 * The server uses `ws`; the client (`mirrorOver`) is written against the
 * WebSocket interface every browser has, so the same function runs in a page
 * with `mirrorOver(WebSocket, 'ws://127.0.0.1:18420/')`; here it runs with the
 * `ws` package's WebSocket. `mirrorOver` lives in
 * examples/websocket-client.ts, which imports nothing from Node (a page can bundle it). Everything binds to 127.0.0.1. `demo` ends by
 * printing `RESULT {json}` (the tests start it in a loopback-only network namespace).
 */
import { WebSocket as NodeWebSocket, WebSocketServer } from 'ws';
import { ReplicationServer } from '../src/replication/index.js';
import { Ship, entities, mirrorOver, type WebSocketCtor } from './websocket-client.js';

/** Skip a client's packet this tick when this much is still queued (a slow client; reliable delivery catches up next tick). */
const MAX_BUFFERED = 256 * 1024;

export interface WsServer {
  server: ReplicationServer<typeof entities>;
  ready: Promise<void>;
  pause(): void;
  stop(): Promise<void>;
}

/** A WebSocket server ticking one ReplicationServer; each connection is a client. */
export function wsServer(port: number, opts: { ships?: number; tickMs?: number } = {}): WsServer {
  const server = new ReplicationServer({ entities, delivery: 'reliable' });
  const wss = new WebSocketServer({ host: '127.0.0.1', port });
  const ready = new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const peers = new Map<number, NodeWebSocket>();
  let next = 0;
  const ids: number[] = [];
  for (let i = 0; i < (opts.ships ?? 50); i++) ids.push(server.spawn(Ship, { x: i * 10, y: 0, hp: 100, name: `ship${i}`, heading: 0 }));
  wss.on('connection', (ws) => {
    const key = ++next;
    peers.set(key, ws);
    server.addClient(key);
    ws.on('close', () => {
      peers.delete(key);
      server.removeClient(key);
    });
    ws.on('error', () => ws.terminate());
  });
  let n = 0;
  const timer = setInterval(() => {
    n++;
    for (const id of ids) {
      if ((id + n) % 5 === 0) server.set(id, { x: (server.get(id)!.values.x as number) + 0.25, y: Math.sin(n / 10) * 100, heading: (n * 2.5) % 360 });
    }
    if (n % 40 === 0) server.set(ids[n % ids.length]!, { hp: n % 256 });
    if (n % 25 === 0) ids.push(server.spawn(Ship, { x: -n, y: n, hp: 1, name: `late${n}`, heading: 90 }));
    if (n % 60 === 0) server.despawn(ids.shift()!);
    server.tick();
    for (const [key, ws] of peers) {
      if (ws.readyState !== NodeWebSocket.OPEN || ws.bufferedAmount > MAX_BUFFERED) continue;
      ws.send(server.packetFor(key));
    }
  }, opts.tickMs ?? 50);
  return {
    server,
    ready,
    pause: () => clearInterval(timer),
    stop: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        for (const ws of peers.values()) ws.close();
        wss.close(() => resolve());
      }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function demo(): Promise<void> {
  const port = 18420;
  const s = wsServer(port, { tickMs: 10 });
  await s.ready;
  const url = `ws://127.0.0.1:${port}/`;
  const a = mirrorOver(NodeWebSocket as unknown as WebSocketCtor, url);
  await sleep(700);
  const b = mirrorOver(NodeWebSocket as unknown as WebSocketCtor, url); // joins late: its first packet is a full state
  await sleep(800);
  s.pause();
  await sleep(200); // let the last packets arrive
  const server = s.server;
  const clients = [a, b].map((c) => {
    let equal = 0;
    let differ = 0;
    for (const [id, e] of c.client.entities) {
      const want = server.get(id)?.values;
      if (want !== undefined && JSON.stringify(want) === JSON.stringify(e.values)) equal++;
      else differ++;
    }
    return { tick: c.client.tick, entities: c.client.entities.size, equal, differ, errors: c.errors() };
  });
  a.stop();
  b.stop();
  await s.stop();
  console.log(`RESULT ${JSON.stringify({ serverTick: server.currentTick, serverEntities: server.size, clients })}`);
}

const mode = process.argv[2];
const port = Number(process.argv[3] ?? 18420);
if (mode === 'server') {
  await wsServer(port).ready;
  console.log(`serving on ws://127.0.0.1:${port}/`);
} else if (mode === 'client') {
  let last = 0;
  mirrorOver(NodeWebSocket as unknown as WebSocketCtor, `ws://127.0.0.1:${port}/`, (c) => {
    if (Date.now() - last > 1000) {
      last = Date.now();
      console.log(`tick ${c.tick}: ${c.entities.size} ships, ship 1 at x=${c.entities.get(1)?.values.x}`);
    }
  });
} else if (mode === 'demo') await demo();

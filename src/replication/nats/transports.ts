/**
 * A relay's own clients over WebSocket (`ws`) and UDP (`node:dgram`). Each
 * connection (WebSocket) or address (UDP) is a client of the relay's
 * `ReplicationServer`; after each relay tick every client gets its packet.
 * From a client, an acknowledgement (first byte 0xB2) goes to the server;
 * anything else is an input, forwarded to the authority over NATS.
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { WebSocketServer, WebSocket } from 'ws';
import type { ReplicationServer, ClientOptions, Delivery } from '../server.js';
import { ACK_MAGIC } from '../wire.js';
import type { NatsRelay } from './relay.js';

export interface ListenOptions {
  host?: string;
  port: number;
  /**
   * Interest and owner of a new client (default: sees everything). `path` is the WebSocket request's URL path and
   * query (none for UDP). A throw refuses the client: a WebSocket is closed with code 1008 and the error's message, a
   * UDP datagram from a new address is dropped (the address is asked again at its next datagram).
   */
  clientOptions?: (info: ClientInfo) => ClientOptions;
}

/** What a transport knows of a new client (see `ListenOptions.clientOptions`). */
export interface ClientInfo {
  transport: 'ws' | 'udp';
  /** The peer: an IP address (WebSocket), `address:port` (UDP). */
  address: string;
  /** The WebSocket request's path and query (`/?x=1&y=2`). */
  path?: string;
}

export interface Listener {
  port: number;
  clients(): number;
  close(): Promise<void>;
}

interface Conn {
  server: ReplicationServer | undefined;
  opts: ClientOptions;
  send(b: Uint8Array): void;
  busy(): boolean;
}

/** Send a client its packet, adding it to the relay's current server first if needed. */
function deliver(server: ReplicationServer, key: string, c: Conn): void {
  if (c.server !== server) {
    server.addClient(key, c.opts);
    c.server = server;
  }
  if (!c.busy()) c.send(server.packetFor(key));
}

/**
 * What `clientOptions` gave, checked before the client is added (a hook written in JavaScript can give anything; a
 * bad value found later, at the relay's tick, would hold up every client): undefined is `{}`.
 */
function checkClientOptions(o: unknown): ClientOptions {
  if (o === undefined) return {};
  if (typeof o !== 'object' || o === null) throw new TypeError(`client options must be an object, not ${o === null ? 'null' : typeof o}`);
  const { interest, interestEvery, owner } = o as Record<string, unknown>;
  if (interest !== undefined && typeof interest !== 'function') throw new TypeError('interest must be a function (id, values) => boolean');
  if (interestEvery !== undefined && interestEvery !== 'tick' && interestEvery !== 'change') throw new TypeError("interestEvery must be 'tick' or 'change'");
  if (owner !== undefined && typeof owner !== 'string' && typeof owner !== 'number') throw new TypeError('owner must be a string or a number');
  return o as ClientOptions;
}

/** A WebSocket close reason from a refusal: the error's message, cut to the 123 bytes a close frame allows. */
function closeReason(e: unknown): string {
  let m = e instanceof Error ? e.message : String(e);
  while (Buffer.byteLength(m) > 123) m = m.slice(0, -1);
  return m;
}

function fromClient(relay: NatsRelay, delivery: Delivery, key: string, c: Conn, bytes: Uint8Array): void {
  if (bytes.length === 0) return;
  if (bytes[0] === ACK_MAGIC) {
    if (c.server === undefined || c.server !== relay.serverFor(delivery)) return;
    try {
      c.server.receive(key, bytes);
    } catch {
      // a bad ack: ignored (the client gets full states until it acks well)
    }
  } else relay.forwardInput(key, bytes);
}

/**
 * Serve the relay's clients over WebSocket (binary messages: state packets out,
 * inputs in). WebSocket is reliable and ordered, so its clients get reliable
 * delivery (each packet against the previous one; no acknowledgement needed,
 * none waited for).
 */
export function serveWebSocket(relay: NatsRelay, opts: ListenOptions & { maxBuffered?: number }): Promise<Listener> {
  const conns = new Map<string, Conn & { ws: WebSocket }>();
  const maxBuffered = opts.maxBuffered ?? 256 * 1024;
  const wss = new WebSocketServer({ host: opts.host ?? '127.0.0.1', port: opts.port });
  let n = 0;
  wss.on('connection', (ws, req) => {
    let co: ClientOptions;
    try {
      co = checkClientOptions(opts.clientOptions?.({ transport: 'ws', address: req.socket.remoteAddress ?? '', path: req.url }));
    } catch (e) {
      ws.close(1008, closeReason(e));
      return;
    }
    const key = `ws${++n}`;
    const c: Conn & { ws: WebSocket } = {
      ws,
      server: undefined,
      opts: co,
      send: (b: Uint8Array) => ws.send(b),
      busy: () => ws.readyState !== WebSocket.OPEN || ws.bufferedAmount > maxBuffered,
    };
    conns.set(key, c);
    ws.on('message', (data, isBinary) => {
      if (isBinary) fromClient(relay, 'reliable', key, c, new Uint8Array(data as Buffer));
    });
    ws.on('close', () => {
      conns.delete(key);
      c.server?.removeClient(key);
    });
    ws.on('error', () => ws.terminate());
  });
  relay.onTick(() => {
    const server = relay.serverFor('reliable');
    if (server !== undefined) for (const [key, c] of conns) deliver(server, key, c);
  });
  relay.onReset(() => {
    for (const c of conns.values()) c.ws.close(1012, 'the authority restarted');
  });
  return new Promise((resolve, reject) => {
    wss.once('error', reject);
    wss.once('listening', () => {
      const addr = wss.address();
      resolve({
        port: typeof addr === 'object' && addr !== null ? addr.port : opts.port,
        clients: () => conns.size,
        close: () =>
          new Promise<void>((r) => {
            for (const c of conns.values()) c.ws.terminate();
            wss.close(() => r());
          }),
      });
    });
  });
}

/** Serve the relay's clients over UDP, acked delivery: a client's first datagram (an ack of tick 0) registers it; silent for `idleMs`, it is dropped. */
export function serveUdp(relay: NatsRelay, opts: ListenOptions & { idleMs?: number }): Promise<Listener> {
  const socket = createSocket('udp4');
  const conns = new Map<string, Conn & { peer: RemoteInfo; seen: number }>();
  const idleMs = opts.idleMs ?? 10_000;
  socket.on('message', (msg, peer) => {
    const key = `udp:${peer.address}:${peer.port}`;
    let c = conns.get(key);
    if (c === undefined) {
      let co: ClientOptions;
      try {
        co = checkClientOptions(opts.clientOptions?.({ transport: 'udp', address: `${peer.address}:${peer.port}` }));
      } catch {
        return;
      }
      c = {
        peer,
        seen: 0,
        server: undefined,
        opts: co,
        send: (b: Uint8Array) => socket.send(b, peer.port, peer.address),
        busy: () => false,
      };
      conns.set(key, c);
    }
    c.seen = Date.now();
    fromClient(relay, 'acked', key, c, new Uint8Array(msg));
  });
  relay.onTick(() => {
    const server = relay.serverFor('acked');
    if (server === undefined) return;
    const now = Date.now();
    for (const [key, c] of conns) {
      if (now - c.seen > idleMs) {
        conns.delete(key);
        c.server?.removeClient(key);
      } else deliver(server, key, c);
    }
  });
  relay.onReset(() => conns.clear());
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(opts.port, opts.host ?? '127.0.0.1', () =>
      resolve({
        port: socket.address().port,
        clients: () => conns.size,
        close: () => new Promise<void>((r) => socket.close(() => r())),
      }),
    );
  });
}

/**
 * `TeeworldsGameServer` over a UDP socket (Node only: node:dgram). Binds to
 * 127.0.0.1 unless told otherwise; ticks every 5 ms (the game's 50 ticks per
 * second are computed from the clock, so a late timer does not slow the game).
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import { TeeworldsGameServer, type GameServerOptions } from './game.js';

export interface UdpServeOptions extends Omit<GameServerOptions, 'send'> {
  host?: string;
  port?: number;
}

export class UdpTeeworldsServer {
  readonly game: TeeworldsGameServer;
  private readonly socket: Socket;
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly t0 = performance.now();
  private closed = false;
  readonly host: string;
  readonly port: number;
  /** Datagrams that could not be sent (socket errors). */
  sendErrors = 0;

  constructor(opts: UdpServeOptions) {
    this.host = opts.host ?? '127.0.0.1';
    this.port = opts.port ?? 8303;
    this.socket = createSocket({ type: isIPv6(this.host) ? 'udp6' : 'udp4', recvBufferSize: 1 << 20 });
    this.game = new TeeworldsGameServer({
      ...opts,
      send: (b, to) => {
        if (this.closed) return;
        this.socket.send(b, to.port, to.address, (e) => {
          if (e) this.sendErrors++;
        });
      },
    });
    this.socket.on('message', (msg, rinfo) => {
      this.game.receive(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength), { address: rinfo.address, port: rinfo.port }, this.now());
    });
    this.socket.on('error', () => {
      this.sendErrors++;
    });
  }

  now(): number {
    return performance.now() - this.t0;
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.socket.once('error', reject);
      this.socket.bind(this.port, this.host, () => {
        this.socket.off('error', reject);
        resolve();
      });
    });
    this.timer = setInterval(() => this.game.update(this.now()), 5);
  }

  get localPort(): number {
    return this.socket.address().port;
  }

  /** CLOSE every client, then release the socket. */
  async close(reason = 'server shutdown'): Promise<void> {
    if (this.closed) return;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.game.close(reason, this.now());
    this.closed = true;
    await new Promise((r) => setTimeout(r, 30));
    await new Promise<void>((r) => this.socket.close(() => r()));
  }
}

export async function serveTeeworlds(opts: UdpServeOptions): Promise<UdpTeeworldsServer> {
  const s = new UdpTeeworldsServer(opts);
  await s.start();
  return s;
}

/**
 * The UDP transport for `TeeworldsClient` (Node only: node:dgram). Nothing in
 * the family imports this file statically, so the rest stays browser-safe; load
 * it with `await import('tickwire/teeworlds/net/udp')` or through
 * `connectTeeworlds` below.
 *
 * ```ts
 * const { connectTeeworlds } = await import('./udp.js');
 * const c = await connectTeeworlds({ host: '127.0.0.1', port: 8303, version: '0.7', name: 'bot' });
 * for await (const snap of c.snapshots()) console.log(snap.tick, snap.snapshot.numItems);
 * ```
 */
import { createSocket, type Socket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP, isIPv6 } from 'node:net';
import { TeeworldsClient, type ClientOptions, type ClientProblem, type ClientState, type ReceivedSnapshot } from './client.js';

export interface UdpConnectOptions extends ClientOptions {
  host: string;
  port: number;
  /** Timer period, ms (default 20). */
  tickMs?: number;
  /** Most snapshots buffered for a slow `snapshots()` reader before the oldest are dropped (default 1000). */
  maxBuffered?: number;
}

/** A TeeworldsClient bound to a UDP socket. */
export class UdpTeeworldsClient {
  readonly client: TeeworldsClient;
  private readonly socket: Socket;
  private timer: ReturnType<typeof setInterval> | undefined;
  private buffered: ReceivedSnapshot[] = [];
  private waiters: (() => void)[] = [];
  private closed = false;
  closeReason: string | undefined;
  readonly problems: ClientProblem[] = [];
  private readonly maxBuffered: number;
  private readonly t0 = performance.now();
  private readonly host: string;
  private readonly port: number;
  /** The server's IP address (resolved in `start`). */
  private address: string | undefined;

  constructor(opts: UdpConnectOptions) {
    this.maxBuffered = opts.maxBuffered ?? 1000;
    this.host = opts.host;
    this.port = opts.port;
    this.socket = createSocket(isIPv6(opts.host) ? 'udp6' : 'udp4');
    this.client = new TeeworldsClient(opts, (b) => {
      if (!this.closed) this.socket.send(b, this.port, this.address ?? this.host);
    });
    this.client.on('snapshot', (s) => {
      this.buffered.push(s);
      if (this.buffered.length > this.maxBuffered) this.buffered.shift();
      this.wake();
    });
    this.client.on('problem', (p) => {
      if (this.problems.length < 1000) this.problems.push(p);
    });
    this.client.on('close', (r) => {
      this.closeReason = r;
      this.shutdown();
    });
    this.client.on('state', () => this.wake());
    this.socket.on('message', (msg, rinfo) => {
      // Only the server may talk to us.
      if (rinfo.port !== this.port || (this.address !== undefined && rinfo.address !== this.address)) {
        if (this.problems.length < 1000) this.problems.push({ what: `datagram from ${rinfo.address}:${rinfo.port} ignored` });
        return;
      }
      this.client.receive(new Uint8Array(msg.buffer, msg.byteOffset, msg.byteLength), this.now());
    });
    this.socket.on('error', (e) => {
      this.problems.push({ what: `socket: ${e.message}` });
      this.client.disconnect('socket error', this.now());
    });
    this.tickMs = opts.tickMs ?? 20;
  }
  private readonly tickMs: number;

  /** Milliseconds since this client was created. */
  now(): number {
    return performance.now() - this.t0;
  }

  /** Bind the socket and start the handshake. */
  async start(): Promise<void> {
    try {
      // Resolve the host once (an IP literal stays as it is).
      this.address = isIP(this.host) ? this.host : (await lookup(this.host, { family: 4 })).address;
      await new Promise<void>((resolve, reject) => {
        this.socket.once('error', reject);
        this.socket.bind(0, () => {
          this.socket.off('error', reject);
          resolve();
        });
      });
    } catch (e) {
      this.closed = true;
      try {
        this.socket.close();
      } catch {
        // not open
      }
      throw e;
    }
    this.client.start(this.now());
    this.timer = setInterval(() => this.client.update(this.now()), this.tickMs);
  }

  /** The local UDP port (after `start`). */
  get localPort(): number {
    return this.socket.address().port;
  }

  get state(): ClientState {
    return this.client.state;
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private waitChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(resolve, ms);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  /** Resolve once the client reached `state` (or fail when it closes or time runs out). */
  async waitFor(state: ClientState, timeoutMs: number): Promise<void> {
    const end = performance.now() + timeoutMs;
    while (this.client.state !== state) {
      if (this.closed) throw new Error(`connection closed before ${state}: ${this.closeReason ?? ''}`);
      const left = end - performance.now();
      if (left <= 0) throw new Error(`timed out waiting for ${state} (state ${this.client.state})`);
      await this.waitChange(Math.min(left, 100));
    }
  }

  /** Completed snapshots as they arrive; ends when the connection closes. */
  async *snapshots(): AsyncGenerator<ReceivedSnapshot> {
    for (;;) {
      const s = this.buffered.shift();
      if (s !== undefined) {
        yield s;
        continue;
      }
      if (this.closed) return;
      await this.waitChange(1000);
    }
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    // Let a CLOSE that was just handed to the socket leave before closing it.
    setTimeout(() => {
      try {
        this.socket.close();
      } catch {
        // already closed
      }
    }, 30);
    this.wake();
  }

  /** Leave cleanly (CLOSE to the server) and release the socket. */
  close(reason = 'leaving'): void {
    if (this.closed) return;
    this.client.disconnect(reason, this.now());
    this.shutdown();
  }
}

/** Create a client, bind it and start connecting. */
export async function connectTeeworlds(opts: UdpConnectOptions): Promise<UdpTeeworldsClient> {
  const c = new UdpTeeworldsClient(opts);
  await c.start();
  return c;
}

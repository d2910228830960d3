/**
 * In-process rig: a `TeeworldsGameServer` and any number of `TeeworldsClient`s
 * (or raw fake peers) wired through queues, on a simulated clock.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TeeworldsClient, type ClientOptions, type ReceivedSnapshot } from '../../src/protocols/teeworlds/index.js';
import { TeeworldsGameServer, type GameServerOptions, type ServeVersion } from '../../src/protocols/teeworlds/net/server/game.js';
import { parseMap, type ServerMap } from '../../src/protocols/teeworlds/net/server/map.js';
import type { Peer } from '../../src/protocols/teeworlds/net/server/netserver.js';

/** A Debian map copied into the fixtures (see test/fixtures/teeworlds-serve/README.md). */
export function fixtureMap(version: ServeVersion): ServerMap {
  const file = version === '0.7' ? 'dm1-tw075.map' : 'dm1-ddnet.map';
  const path = fileURLToPath(new URL(`../fixtures/teeworlds-serve/${file}`, import.meta.url));
  return parseMap('dm1', new Uint8Array(readFileSync(path)));
}

export interface RigClient {
  peer: Peer;
  client: TeeworldsClient;
  snaps: ReceivedSnapshot[];
}

export class Rig {
  now = 0;
  readonly server: TeeworldsGameServer;
  readonly clients: RigClient[] = [];
  /** Datagrams from the server to each peer key. */
  private readonly inbox = new Map<string, Uint8Array[]>();
  /** Every datagram the server sent (count only). */
  sentByServer = 0;
  events: Record<string, unknown>[] = [];

  constructor(version: ServeVersion, opts: Partial<GameServerOptions> = {}) {
    this.server = new TeeworldsGameServer({
      version,
      map: fixtureMap(version),
      send: (b, to) => {
        this.sentByServer++;
        const k = `${to.address}:${to.port}`;
        const q = this.inbox.get(k);
        if (q !== undefined && q.length < 10000) q.push(b);
      },
      log: (e) => this.events.push(e),
      ...opts,
    });
  }

  addClient(opts: ClientOptions, port: number): RigClient {
    const peer = { address: '127.0.0.1', port };
    const rc: RigClient = {
      peer,
      client: new TeeworldsClient(opts, (b) => this.server.receive(b, peer, this.now)),
      snaps: [],
    };
    rc.client.on('snapshot', (s) => rc.snaps.push(s));
    this.inbox.set(`${peer.address}:${peer.port}`, []);
    this.clients.push(rc);
    rc.client.start(this.now);
    return rc;
  }

  /** Run `ms` of simulated time in 20 ms steps (one server tick). */
  run(ms: number, each?: () => void): void {
    const end = this.now + ms;
    while (this.now < end) {
      this.now += 20;
      this.server.update(this.now);
      for (const c of this.clients) {
        const q = this.inbox.get(`${c.peer.address}:${c.peer.port}`)!;
        const batch = q.splice(0, q.length);
        for (const b of batch) c.client.receive(b, this.now);
        c.client.update(this.now);
      }
      each?.();
    }
  }
}

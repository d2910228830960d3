/**
 * tickwire/replication/nats: relays fed through NATS JetStream, so that one
 * authoritative world is watched by many clients (README, "Relays over NATS").
 * Needs the optional dependencies `@nats-io/transport-node` and `@nats-io/jetstream`.
 */
import { connect, type NatsConnection } from '@nats-io/transport-node';

export { NatsPublisher } from './publisher.js';
export type { NatsPublisherOptions, PublisherStats } from './publisher.js';
export { NatsRelay } from './relay.js';
export type { NatsRelayOptions, RelayEvent, RelayStats } from './relay.js';
export { serveWebSocket, serveUdp } from './transports.js';
export type { ClientInfo, ListenOptions, Listener } from './transports.js';
export { worldNames, H as HEADERS } from './names.js';
export type { WorldNames } from './names.js';
export { entityHash, viewHash, ViewHash } from './hash.js';

/** Connect to NATS with the settings relays and publishers want: reconnect forever, quickly. */
export function connectNats(servers: string, name?: string): Promise<NatsConnection> {
  return connect({ servers, name, maxReconnectAttempts: -1, reconnectTimeWait: 250, pingInterval: 2000, maxPingOut: 2, waitOnFirstConnect: true });
}
export type { NatsConnection };

/**
 * `connectTeeworlds`: join a server over UDP (Node only). The UDP transport
 * (`udp.ts`, which needs node:dgram) is loaded here with a dynamic `import()`
 * whose specifier bundlers cannot follow, so the family's public API stays
 * browser-safe; in a browser, drive `TeeworldsClient` over your own transport.
 *
 * ```ts
 * import { connectTeeworlds } from 'tickwire/teeworlds';
 * const c = await connectTeeworlds({ host: '127.0.0.1', port: 8303, version: '0.7', name: 'bot' });
 * for await (const snap of c.snapshots()) console.log(snap.tick, snap.crcOk, snap.snapshot.numItems);
 * ```
 */
import type { UdpConnectOptions, UdpTeeworldsClient } from './udp.js';

export type { UdpConnectOptions, UdpTeeworldsClient };

/** Create a UDP client, bind it and start the handshake. */
export async function connectTeeworlds(opts: UdpConnectOptions): Promise<UdpTeeworldsClient> {
  const udp = './udp.js';
  const m = (await import(udp)) as typeof import('./udp.js');
  return m.connectTeeworlds(opts);
}

/** A UDP client that is not started yet (attach listeners, then `await client.start()`). */
export async function createTeeworldsClient(opts: UdpConnectOptions): Promise<UdpTeeworldsClient> {
  const udp = './udp.js';
  const m = (await import(udp)) as typeof import('./udp.js');
  return new m.UdpTeeworldsClient(opts);
}

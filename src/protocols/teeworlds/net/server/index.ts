/**
 * `tickwire serve teeworlds`: a Teeworlds / DDNet server on tickwire (Node only: UDP,
 * files, hashes). Not part of the browser-safe `net/` entry; the CLI loads it with a
 * dynamic import.
 *
 * - `netserver.ts` handshakes (0.7 tokens, DDNet's 0.6 token, plain 0.6), slots, per-client `NetConn`
 * - `game.ts` the game flow and the snapshots (`SnapshotProducer`), per-client counts
 * - `map.ts` map files, CRC / SHA-256, the game layer
 * - `world.ts` the built-in world (bots, projectiles, pickups)
 * - `udp.ts` the UDP transport
 */
export { loadMapFile, resolveMap } from './map.js';
export { serveTeeworlds } from './udp.js';

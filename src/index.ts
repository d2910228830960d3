/**
 * tickwire: read, write and replicate the entity-update messages of real-time game servers.
 *
 * The root entry is the core layer only (bytes, bits, varints, errors, limits,
 * spans, LZ4, zlib, hex, captures, the client-mirror contract), so that
 * `import { ByteReader } from 'tickwire'` pulls in no protocol family. Each
 * family has its own entry: `tickwire/scrapmechanic`, `tickwire/teeworlds`,
 * `tickwire/wow`, `tickwire/diep`.
 */
export * from './core/index.js';

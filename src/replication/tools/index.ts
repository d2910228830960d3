/**
 * `tickwire/replication` internals for tools that read or write packets bit by
 * bit (the CLI and inspector family in src/families/replication.ts): the bit
 * streams, the field codec and raw-value conversions. Not a stable API for games.
 */
export { BitIn, BitOut, bitLength, readGamma, writeGamma } from '../bits.js';
export { readField, writeBody } from '../codec.js';
export { defaultRaw } from '../schema.js';
export { FloatBits, fromRaw, toRaw } from '../values.js';
export { hex32, varintBytes } from '../wire.js';

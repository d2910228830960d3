/**
 * tickwire: read, write and replicate the entity-update messages of real-time game servers.
 *
 * The root entry exports the core layer. Each protocol family has its own entry:
 * `tickwire/scrapmechanic`, `tickwire/teeworlds`, `tickwire/wow`, `tickwire/diep`.
 */
export * from './core/index.js';
export * as scrapmechanic from './protocols/scrapmechanic/index.js';
export * as teeworlds from './protocols/teeworlds/index.js';
export * as wow from './protocols/wow/index.js';
export * as diep from './protocols/diep/index.js';

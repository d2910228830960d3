/**
 * tickwire/replication: a transport-free replication engine for any game.
 * See README.md ("Replication") and docs/replication-wire.md.
 */
export { t, defineEntity, schemaToJson, schemaFromJson, schemaHash } from './schema.js';
export type { Field, FieldKind, Fields, ValuesOf, EntityDef, AnyEntityDef, SchemaJson, FieldJson } from './schema.js';
export { ReplicationServer } from './server.js';
export type { ServerOptions, ClientOptions as ServerClientOptions, ClientKey, OwnerTag, Delivery, EntityHandle, ColumnsOf } from './server.js';
export { ReplicationClient, ReplicatedEntity, bundleParts, readPacketHeader } from './client.js';
export type { ReceiveResult, EntityOf, ClientOptions } from './client.js';
export { LossyLink } from './lossy.js';
export type { LossyOptions } from './lossy.js';
export { STATE_MAGIC, ACK_MAGIC, BUNDLE_MAGIC } from './wire.js';

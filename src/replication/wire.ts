/** Constants of the replication wire format (docs/replication-wire.md). */

/** First byte of a state packet (server → client), format version 1. */
export const STATE_MAGIC = 0xb1;
/** First byte of an acknowledgement (client → server), format version 1. */
export const ACK_MAGIC = 0xb2;
/**
 * First byte of a bundle (server → client): state packets of consecutive ticks,
 * each against the tick before it, applied in order as one (see
 * docs/replication-wire.md).
 */
export const BUNDLE_MAGIC = 0xb3;
/** Largest state-packet header: magic, schema hash, session, four varints of at most 5 bytes. */
export const HEADER_MAX = 1 + 4 + 4 + 4 * 5;

/**
 * A server's session: a random non-zero u32 per server object, in every state
 * packet it makes and in the acks of the clients that follow it, so that a
 * client tells a restarted server from the one it followed (whose tick numbers
 * the new one reuses), and a server ignores the acks of a client that follows
 * another.
 */
export function newSession(): number {
  const a = new Uint32Array(1);
  do crypto.getRandomValues(a);
  while (a[0] === 0);
  return a[0]!;
}

export function hex32(n: number): string {
  return `0x${(n >>> 0).toString(16).padStart(8, '0')}`;
}

/** The bytes of `v` (< 2^32) as a varint. */
export function varintBytes(v: number): number {
  let n = 1;
  for (; v >= 0x80; v >>>= 7) n++;
  return n;
}

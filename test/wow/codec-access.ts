import { encodeBody } from '../../src/protocols/wow/index.js';
import type { Movement } from '../../src/protocols/wow/index.js';
export * from '../../src/protocols/wow/index.js';

/** The MovementBlock bytes alone: encode a MOVEMENT block and cut off the body header, type and u64 guid. */
export function encodeMovementForTest(m: Movement): Uint8Array {
  const b = encodeBody({ hasTransport: 0, blocks: [{ updateType: 1, guid: 0n, movement: m }] });
  return b.subarray(5 + 1 + 8);
}

/** Diep: clientbound and serverbound decoders, and the EntityStore fed a sequence of packets. */
import { EntityStore, decodeClientbound, decodeServerbound } from '../../src/protocols/diep/index.js';
import { bound, expectTotal, joinMessages, sampleLines, splitMessages } from '../common.js';

export function seeds(): Uint8Array[] {
  const lines = sampleLines('samples/diep/sandbox_nospawn.hex');
  return [...lines.slice(0, 20), joinMessages(lines.slice(0, 10))];
}

export function fuzz(data: Uint8Array): void {
  const store = new EntityStore();
  for (const m of splitMessages(data)) {
    expectTotal(() => void decodeServerbound(m));
    expectTotal(() => void decodeClientbound(m));
    expectTotal(() => void store.applyBytes(m));
  }
  // issues are kept bounded however many a packet causes
  bound('EntityStore.issues.length', store.issues.length, 10_000);
}

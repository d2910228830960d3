/** WoW: every frame through decodePacket, then into an ObjectStore (state across frames). */
import { ObjectStore, decodePacket, splitFrames } from '../../src/protocols/wow/index.js';
import { expectTotal, joinMessages, sampleLines, splitMessages } from '../common.js';

export function seeds(): Uint8Array[] {
  const lines = sampleLines('samples/wow/session.hex');
  return [...lines, joinMessages(lines)];
}

export function fuzz(data: Uint8Array): void {
  const store = new ObjectStore();
  for (const m of splitMessages(data)) expectTotal(() => store.apply(decodePacket(m)));
  expectTotal(() => void splitFrames(data));
}

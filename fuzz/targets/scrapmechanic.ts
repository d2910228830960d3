/** Scrap Mechanic: a session fed a sequence of 0x16 / 0x15 / 0x1D messages (controller types carried across). */
import { ScrapMechanicSession } from '../../src/protocols/scrapmechanic/index.js';
import { expectTotal, joinMessages, sampleLines, splitMessages } from '../common.js';

export function seeds(): Uint8Array[] {
  const lines = sampleLines('samples/scrapmechanic/network-updates.hex');
  return [...lines, joinMessages(lines)];
}

export function fuzz(data: Uint8Array): void {
  const session = new ScrapMechanicSession();
  for (const m of splitMessages(data)) expectTotal(() => void session.decodeMessage(m));
}

/**
 * Writes test/fixtures/diep/pcap/sandbox-shared-compressor.har from the messages
 * tickwire reads out of the real capture (see that folder's README).
 *   npx tsx test/diep-capture/make-har.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { writeHarWebSockets } from '../../src/core/har.js';
import { DiepCaptureReader } from '../../src/protocols/diep/capture.js';

const dir = new URL('../fixtures/diep/pcap/', import.meta.url);
const pcap = new Uint8Array(readFileSync(new URL('sandbox-shared-compressor.pcap', dir)));
const messages: { type: 'send' | 'receive'; time: number; opcode: number; data: Uint8Array }[] = [];
let url = '';
for (const it of new DiepCaptureReader().pcap(pcap)) {
  if (it.kind === 'connection') url = `ws://${it.server!.addr}:${it.server!.port}${it.url}`;
  if (it.kind === 'message') messages.push({ type: it.direction === 'serverbound' ? 'send' : 'receive', time: it.time, opcode: it.opcode, data: it.data });
}
writeFileSync(new URL('sandbox-shared-compressor.har', dir), writeHarWebSockets([{ url, messages }]));
console.log(`${messages.length} messages`);

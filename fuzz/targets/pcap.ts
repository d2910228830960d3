/** Captures: pcap / pcapng reading, UDP datagram extraction, and the Teeworlds conversation follower. */
import { buildUdpIpv4, readCapture, udpDatagrams, writePcap, LINKTYPE_RAW } from '../../src/core/index.js';
import { decodeTeeworldsCapture } from '../../src/protocols/teeworlds/index.js';
import { expectTotal, sampleLines } from '../common.js';

export function seeds(): Uint8Array[] {
  const payloads = sampleLines('samples/teeworlds/tw075_live.hex').slice(0, 4);
  const frames = payloads.map((p, i) => ({ time: i * 0.02, data: buildUdpIpv4('127.0.0.1', 8303, '127.0.0.1', 50000, p, i) }));
  return [writePcap(frames, LINKTYPE_RAW)];
}

export function fuzz(data: Uint8Array): void {
  expectTotal(() => {
    const cap = readCapture(data);
    for (const d of udpDatagrams(cap)) void d;
  });
  expectTotal(() => {
    for (const x of decodeTeeworldsCapture(data, { version: '0.7' } as never)) void x;
  });
}

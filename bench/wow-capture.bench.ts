/**
 * WoW 1.12.1 pcap-to-records throughput: a synthetic encrypted session (our
 * update builder, the 88 real BloogBot frames, opaque frames; random
 * segmentation with retransmissions and reordering) read from a pcap through
 * TCP reassembly, header decryption and framing (`decodeWowCapture`), and on to
 * the adapter's JSON records with every update frame decoded
 * (`tickwire decode wow --pcap`: no spans or state), and with the spans and the
 * object-store state after each frame (the page, `stats`). With the key and
 * without it (key recovery).
 */
import { tcpEvents } from '../src/core/tcp.js';
import { readCapture } from '../src/core/pcap.js';
import { decodeWowCapture } from '../src/protocols/wow/capture.js';
import { sessionKeyToDbHex } from '../src/protocols/wow/cipher.js';
import { wow } from '../src/families/wow.js';
import { synthSession } from '../test/wow-capture/synth.js';
import type { BenchCase } from './harness.js';

export function cases(): BenchCase[] {
  const s = synthSession({ seed: 5, ticks: 200, real: true, retransmit: 0.05, reorder: 0.05, coalesce: 0.3 });
  const frames = s.server.length + s.client.length;
  const bytes = s.pcap.length;
  const records = (opts: Record<string, string | boolean>, detail?: { spans: boolean; state: boolean }) => {
    let n = 0;
    for (const m of wow.decodeFile!(s.pcap, { pcap: 'bench.pcap', ...opts }, detail)!) n += m.records.length;
    return n;
  };
  const keyHex = sessionKeyToDbHex(s.key);
  return [
    { group: 'wow-capture', name: `TCP reassembly only (${bytes} B pcap)`, bytes, fn: () => tcpEvents(readCapture(s.pcap)).length },
    {
      group: 'wow-capture',
      name: `pcap → frames, session key given (${frames} frames)`,
      bytes,
      items: frames,
      itemUnit: 'frames',
      fn: () => decodeWowCapture(s.pcap, { sessionKey: s.key }).length,
    },
    {
      group: 'wow-capture',
      name: `pcap → frames, key recovered (${frames} frames)`,
      bytes,
      items: frames,
      itemUnit: 'frames',
      fn: () => decodeWowCapture(s.pcap).length,
    },
    {
      group: 'wow-capture',
      name: 'pcap → records (decode wow --pcap --session-key), updates decoded',
      bytes,
      items: frames,
      itemUnit: 'frames',
      fn: () => records({ 'session-key': keyHex }, { spans: false, state: false }),
    },
    {
      group: 'wow-capture',
      name: 'pcap → records + spans + state (the page, stats), updates decoded',
      bytes,
      items: frames,
      itemUnit: 'frames',
      fn: () => records({ 'session-key': keyHex }),
    },
  ];
}

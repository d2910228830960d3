/**
 * Diep.io pcap-to-records throughput, on the real diepcustom captures of
 * test/fixtures/diep/pcap/ (loopback, permessage-deflate with and without
 * context takeover): a pcap through TCP reassembly, the WebSocket layer
 * (upgrade, unmasking, fragments, inflate) to messages (`DiepCaptureReader`);
 * on to the adapter's JSON records with every message decoded by the family's
 * stream decoder (`tickwire decode diep --pcap`, no spans or state); and with
 * the spans and the entity-store state after each message (the page, `stats`).
 * The HAR file (the same messages, base64 in JSON) to records too.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { diep } from '../src/families/diep.js';
import { DiepCaptureReader } from '../src/protocols/diep/index.js';
import type { BenchCase } from './harness.js';

const dir = join(new URL('.', import.meta.url).pathname, '..', 'test', 'fixtures', 'diep', 'pcap');

export function cases(): BenchCase[] {
  const out: BenchCase[] = [];
  for (const [file, label] of [
    ['sandbox-shared-compressor.pcap', 'sandbox pcap (no context takeover)'],
    ['ffa-dedicated-compressor.pcap', 'ffa pcap (context takeover)'],
    ['sandbox-shared-compressor.har', 'sandbox HAR'],
  ] as const) {
    const b = new Uint8Array(readFileSync(join(dir, file)));
    const har = file.endsWith('.har');
    const opts = har ? { har: file } : { pcap: file };
    const items = () => (har ? new DiepCaptureReader({ decode: false }).har(b) : new DiepCaptureReader({ decode: false }).pcap(b));
    let messages = 0;
    for (const it of items()) if (it.kind === 'message') messages++;
    const records = (detail?: { spans: boolean; state: boolean }) => {
      let n = 0;
      for (const m of diep.decodeFile!(b, opts, detail)!) n += m.records.length;
      return n;
    };
    out.push(
      {
        group: 'diep-capture',
        name: `${label} → messages (${b.length} B, ${messages} messages)`,
        bytes: b.length,
        items: messages,
        itemUnit: 'messages',
        fn: () => {
          let n = 0;
          for (const _ of items()) n++;
          return n;
        },
      },
      {
        group: 'diep-capture',
        name: `${label} → records (decode diep --${har ? 'har' : 'pcap'})`,
        bytes: b.length,
        items: messages,
        itemUnit: 'messages',
        fn: () => records({ spans: false, state: false }),
      },
      {
        group: 'diep-capture',
        name: `${label} → records + spans + state (the page, stats)`,
        bytes: b.length,
        items: messages,
        itemUnit: 'messages',
        fn: () => records(),
      },
    );
  }
  return out;
}

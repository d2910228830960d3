/**
 * Teeworlds captures and demos to records: the real 0.7.5 capture (the
 * client-record session) through `decodeTeeworldsCapture` (datagrams, chunks,
 * every snapshot rebuilt with its CRC) and on to the adapter's records with the
 * inspector's spans and state (`tickwire decode teeworlds --pcap`, the page);
 * the real demos through `demoEvents` (chunks, Huffman, snapshots and deltas)
 * and on to the adapter's records; and writing a demo back (`DemoWriter`).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { teeworlds } from '../src/families/teeworlds.js';
import { DemoWriter, decodeTeeworldsCapture, demoEvents, readDemoInfo } from '../src/protocols/teeworlds/index.js';
import type { BenchCase } from './harness.js';

const dir = join(new URL('.', import.meta.url).pathname, '..', 'test', 'fixtures', 'teeworlds', 'demos');

export function cases(): BenchCase[] {
  const pcap = new Uint8Array(readFileSync(join(dir, 'tw075-client-record-dm1.pcap')));
  let snaps = 0;
  for (const d of decodeTeeworldsCapture(pcap, { version: '0.7' })) snaps += d.snapshots.length;
  const out: BenchCase[] = [
    {
      group: 'teeworlds-capture',
      name: `0.7.5 pcap → snapshots (${pcap.length} B, ${snaps} snapshots)`,
      bytes: pcap.length,
      items: snaps,
      itemUnit: 'snapshots',
      fn: () => {
        let n = 0;
        for (const d of decodeTeeworldsCapture(pcap, { version: '0.7' })) n += d.snapshots.length;
        return n;
      },
    },
    {
      group: 'teeworlds-capture',
      name: `0.7.5 pcap → records (decode --pcap: no spans or state)`,
      bytes: pcap.length,
      items: snaps,
      itemUnit: 'snapshots',
      fn: () => {
        let n = 0;
        for (const m of teeworlds.decodeFile!(pcap, { version: '0.7' }, { spans: false, state: false })!) n += m.records.length;
        return n;
      },
    },
    {
      group: 'teeworlds-capture',
      name: `0.7.5 pcap → records + spans + state (the page, stats)`,
      bytes: pcap.length,
      items: snaps,
      itemUnit: 'snapshots',
      fn: () => {
        let n = 0;
        for (const m of teeworlds.decodeFile!(pcap, { version: '0.7' })!) n += m.records.length;
        return n;
      },
    },
  ];
  for (const [file, label] of [
    ['ddnet164-server-dm1.demo', 'DDNet 16.4 server demo'],
    ['tw075-server-autorecord-dm1.demo', '0.7.5 server demo'],
  ] as const) {
    const b = new Uint8Array(readFileSync(join(dir, file)));
    const info = readDemoInfo(b);
    const events = [...demoEvents(b, info)];
    const n = events.filter((e) => e.kind !== 'message').length;
    out.push(
      {
        group: 'teeworlds-capture',
        name: `${label} → snapshots (${b.length} B, ${n} snapshots, ${events.length - n} messages)`,
        bytes: b.length,
        items: n,
        itemUnit: 'snapshots',
        fn: () => {
          let k = 0;
          for (const _ of demoEvents(b, readDemoInfo(b))) k++;
          return k;
        },
      },
      {
        group: 'teeworlds-capture',
        name: `${label} → records (decode --demo: no spans or state)`,
        bytes: b.length,
        items: n,
        itemUnit: 'snapshots',
        fn: () => {
          let k = 0;
          for (const m of teeworlds.decodeFile!(b, { demo: true }, { spans: false, state: false })!) k += m.records.length;
          return k;
        },
      },
      {
        group: 'teeworlds-capture',
        name: `${label} → records + spans + state (the page, stats)`,
        bytes: b.length,
        items: n,
        itemUnit: 'snapshots',
        fn: () => {
          let k = 0;
          for (const m of teeworlds.decodeFile!(b, { demo: true })!) k += m.records.length;
          return k;
        },
      },
      {
        group: 'teeworlds-capture',
        name: `${label}: snapshots → demo (DemoWriter)`,
        bytes: b.length,
        items: n,
        itemUnit: 'snapshots',
        fn: () => {
          const w = new DemoWriter({ codec: info.codec, version: info.header.version, map: info.map, mapName: info.header.mapName });
          for (const e of events) {
            if (e.kind === 'message') w.message(e.data, e.tick);
            else w.snapshot(e.tick, e.snapshot);
          }
          return w.finish().length;
        },
      },
    );
  }
  return out;
}

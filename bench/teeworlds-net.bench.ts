/**
 * Teeworlds network layer: Huffman, packet + chunk decoding of the live fixture
 * datagrams, the whole receive path (datagram → snapshot with CRC), and pcap
 * reading.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildUdpIpv4, readCapture, udpDatagrams, writePcap } from '../src/core/pcap.js';
import {
  decodeChunks,
  decodePacket,
  huffmanCompress,
  huffmanDecompress,
  MsgReader,
  readMsgHeader,
  SnapshotReceiver,
  type NetVersion,
  type TwVersion,
} from '../src/protocols/teeworlds/index.js';
import type { BenchCase } from './harness.js';

const dir = join(new URL('.', import.meta.url).pathname, '..', 'test', 'fixtures', 'teeworlds');
const FILES: [string, NetVersion, boolean, TwVersion][] = [
  ['tw075_live.json', '0.7', false, '0.7'],
  ['ddnet164_live.json', '0.6', true, 'ddnet'],
  ['ddnet164_multipart_live.json', '0.6', true, 'ddnet'],
];

function hex(s: string): Uint8Array {
  const b = new Uint8Array(s.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return b;
}

export function cases(): BenchCase[] {
  const sets = FILES.map(([f, v, tok, cv]) => ({
    v,
    tok,
    cv,
    dgrams: (JSON.parse(readFileSync(join(dir, f), 'utf8')) as { udpPacketsHex: string[] }[]).map((e) => hex(e.udpPacketsHex[0]!)),
  }));
  const all = sets.flatMap((s) => s.dgrams.map((d) => ({ d, v: s.v, tok: s.tok })));
  const allBytes = all.reduce((n, x) => n + x.d.length, 0);
  // Compressed payloads and their decompressed form.
  const compressed = all.filter((x) => (x.v === '0.7' ? x.d[0]! & 0x10 : x.d[0]! & 0x80)).map((x) => x.d.subarray(x.v === '0.7' ? 7 : 3));
  const compBytes = compressed.reduce((n, c) => n + c.length, 0);
  const raw = compressed.map((c) => huffmanDecompress(c));
  const rawBytes = raw.reduce((n, c) => n + c.length, 0);

  // Receive path over the two files whose snapshots chain completely.
  const chained = sets.slice(0, 2);
  const chainedBytes = chained.reduce((n, s) => n + s.dgrams.reduce((m, d) => m + d.length, 0), 0);
  const receive = () => {
    let items = 0;
    for (const s of chained) {
      const rx = new SnapshotReceiver(s.cv);
      for (const d of s.dgrams) {
        const pk = decodePacket(d, { version: s.v, securityToken: s.tok });
        for (const c of decodeChunks(pk.payload, pk.numChunks, s.v).chunks) {
          const h = readMsgHeader(new MsgReader(c.data));
          if (!h.system || h.id < 5 || h.id > 8) continue;
          const r = rx.receiveBytes(c.data);
          if (r.status === 'complete') items += r.snapshot!.numItems;
        }
      }
    }
    return items;
  };
  const itemsPerRun = receive();

  // A capture of 2000 datagrams.
  const frames = Array.from({ length: 2000 }, (_, i) => ({ time: i / 50, data: buildUdpIpv4('127.0.0.1', 8303, '127.0.0.1', 40000, all[i % all.length]!.d) }));
  const pcap = writePcap(frames);

  return [
    {
      group: 'teeworlds-net',
      name: 'huffman decompress (fixture payloads)',
      bytes: compBytes,
      target: { mbps: 330 },
      fn: () => compressed.map((c) => huffmanDecompress(c)),
    },
    {
      group: 'teeworlds-net',
      name: 'huffman compress (fixture payloads)',
      bytes: rawBytes,
      target: { mbps: 200 },
      fn: () => raw.map((c) => huffmanCompress(c)),
    },
    {
      group: 'teeworlds-net',
      name: 'packet + chunks decode (36 datagrams)',
      bytes: allBytes,
      items: all.length,
      itemUnit: 'datagrams',
      fn: () => {
        let n = 0;
        for (const x of all) {
          const pk = decodePacket(x.d, { version: x.v, securityToken: x.tok });
          n += decodeChunks(pk.payload, pk.numChunks, x.v).chunks.length;
        }
        return n;
      },
    },
    {
      group: 'teeworlds-net',
      name: 'datagram → snapshot (CRC checked), 24 datagrams',
      bytes: chainedBytes,
      items: itemsPerRun,
      itemUnit: 'items',
      target: { mbps: 200 },
      fn: receive,
    },
    {
      group: 'teeworlds-net',
      name: 'pcap read + UDP extraction (2000 frames)',
      bytes: pcap.length,
      items: 2000,
      itemUnit: 'frames',
      fn: () => udpDatagrams(readCapture(pcap)).length,
    },
  ];
}

/**
 * The teeworlds-go 0.7 captures (real DDNet, vanilla 0.7.5 and race servers):
 * every snapshot message is found in the datagrams, reassembled from its parts
 * and, for full snapshots, rebuilt with a matching CRC and item count.
 *
 * The datagrams are Huffman-compressed; this test decodes them with a minimal
 * decoder built from the 257 codes listed in the libtw2 fixture (the codec
 * under test has no Huffman: that is the network layer's job).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex } from '../../src/core/index.js';
import { decodeMessageHeader, SnapshotReceiver, typedItems, type ReceiveResult, type Snapshot } from '../../src/protocols/teeworlds/index.js';
import { loadJson } from './helpers.js';

interface Codes {
  codes: { symbol: number; bits: string }[];
  docExample: { raw: string; compressed: string };
}

function huffmanDecoder(): (src: Uint8Array) => Uint8Array {
  const byCode = new Map<string, number>();
  for (const c of loadJson<Codes>('libtw2-huffman-test-cases.json').codes) byCode.set(c.bits, c.symbol);
  return (src) => {
    const out: number[] = [];
    let cur = '';
    for (let i = 0; i < src.length; i++) {
      for (let b = 0; b < 8; b++) {
        cur += (src[i]! >> b) & 1 ? '1' : '0';
        const sym = byCode.get(cur);
        if (sym === undefined) continue;
        if (sym === 256) return new Uint8Array(out);
        out.push(sym);
        cur = '';
      }
    }
    throw new Error('no EOF');
  };
}

/** 0.7 datagram → chunk payloads (reference §14.4, §14.6 with S = 6). */
function chunks07(d: Uint8Array, huff: (b: Uint8Array) => Uint8Array): Uint8Array[] {
  const flags = d[0]! >> 2;
  const num = d[2]!;
  const p = flags & 4 ? huff(d.subarray(7)) : d.subarray(7);
  const out: Uint8Array[] = [];
  let o = 0;
  for (let i = 0; i < num; i++) {
    const b0 = p[o]!;
    const b1 = p[o + 1]!;
    const size = ((b0 & 0x3f) << 6) | (b1 & 0x3f);
    const vital = (b0 & 0x40) !== 0;
    o += vital ? 3 : 2;
    out.push(p.subarray(o, o + size));
    o += size;
  }
  return out;
}

interface GoEntry {
  source: string;
  tick: number;
  deltaTick: number;
  crc: number;
  numParts: number;
  items: number;
  crcVerifiable: boolean;
  udpPacketsHex: string[];
}

test('huffman helper agrees with the documented example', () => {
  const fx = loadJson<Codes>('libtw2-huffman-test-cases.json');
  const h = huffmanDecoder();
  assert.deepEqual(Array.from(h(fromHex(fx.docExample.compressed))), Array.from(fromHex(fx.docExample.raw)));
});

test('teeworlds-go 0.7 captures: snapshots reassemble; full ones rebuild with matching CRC and item count', () => {
  const h = huffmanDecoder();
  const entries = loadJson<GoEntry[]>('teeworlds-go-snapshot7.json');
  let full = 0;
  for (const e of entries) {
    const rx = new SnapshotReceiver('0.7');
    let result: ReceiveResult | undefined;
    let found = 0;
    for (const hex of e.udpPacketsHex) {
      for (const c of chunks07(fromHex(hex), h)) {
        const hdr = decodeMessageHeader(c);
        if (!hdr.system || hdr.id < 6 || hdr.id > 8) continue; // SNAP, SNAPEMPTY, SNAPSINGLE (0.7)
        found++;
        const r = rx.receiveBytes(c);
        assert.equal(r.message.tick, e.tick, e.source);
        assert.equal(r.message.deltaTick, e.deltaTick, e.source);
        assert.equal(r.message.numParts, e.numParts, e.source);
        if (r.status !== 'partial') result = r;
      }
    }
    assert.equal(found, e.numParts, `${e.source}: all parts found`);
    assert.ok(result, `${e.source}: reassembled`);
    if (e.crcVerifiable) {
      assert.equal(result.status, 'complete', `${e.source} tick ${e.tick}: ${result.status}`);
      assert.equal(result.snapshot!.crc(), e.crc, e.source);
      assert.equal(result.snapshot!.numItems, e.items, e.source);
      const typed = typedItems('0.7', result.snapshot!);
      assert.ok(typed.every((t) => t.data.length >= 0));
      full++;
    } else {
      // a delta against a snapshot that is not in the capture: the base is missing
      assert.equal(result.status, 'missing-base', e.source);
    }
  }
  assert.equal(full, 8);
});

test('teeworlds-go: the DDNet 0.7 snapshot has race types 23/24 and declared extended types, all resolved', () => {
  const h = huffmanDecoder();
  const e = loadJson<GoEntry[]>('teeworlds-go-snapshot7.json').find((x) => x.source.includes('ddnet_2part'))!;
  const rx = new SnapshotReceiver('0.7');
  let snap: Snapshot | undefined;
  for (const hex of e.udpPacketsHex)
    for (const c of chunks07(fromHex(hex), h)) {
      const hdr = decodeMessageHeader(c);
      if (hdr.system && hdr.id >= 6 && hdr.id <= 8) snap = rx.receiveBytes(c).snapshot ?? snap;
    }
  const typed = typedItems('0.7', snap!);
  const names = new Set(typed.map((t) => t.typeName));
  assert.ok(names.has('PlayerInfoRace') || names.has('GameDataRace'));
  assert.equal(typed.filter((t) => t.type === 0).length, 10);
  assert.ok(names.has('DDNetCharacter') || names.has('DDNetPlayer') || names.has('GameInfoEx'));
});

test('teeworlds-go: every item of the full snapshots has a known type name', () => {
  const h = huffmanDecoder();
  for (const e of loadJson<GoEntry[]>('teeworlds-go-snapshot7.json').filter((x) => x.crcVerifiable)) {
    const rx = new SnapshotReceiver('0.7');
    let snap: Snapshot | undefined;
    for (const hex of e.udpPacketsHex)
      for (const c of chunks07(fromHex(hex), h)) {
        const hdr = decodeMessageHeader(c);
        if (hdr.system && hdr.id >= 6 && hdr.id <= 8) snap = rx.receiveBytes(c).snapshot ?? snap;
      }
    const unknown = typedItems('0.7', snap!)
      .filter((t) => t.fields === undefined)
      .map((t) => `${t.typeName}`);
    assert.deepEqual([...new Set(unknown)], [], e.source);
  }
});

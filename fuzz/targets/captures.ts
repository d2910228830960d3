/**
 * Whole-file readers through the family adapters' `decodeFile`: pcap/pcapng with TCP
 * reassembly and the WoW header cipher, WebSocket (with permessage-deflate) in a pcap,
 * HAR exports, and Teeworlds demos / pcaps. The first byte picks the family.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FAMILIES } from '../../src/families/registry.js';
import { ROOT, expectTotal } from '../common.js';

const WITH_FILES = FAMILIES.filter((f) => f.decodeFile !== undefined);

function seed(family: string, rel: string): Uint8Array {
  const i = WITH_FILES.findIndex((f) => f.name === family);
  const body = readFileSync(join(ROOT, rel));
  const out = new Uint8Array(body.length + 1);
  out[0] = Math.max(0, i);
  out.set(body, 1);
  return out;
}

export function seeds(): Uint8Array[] {
  return [
    seed('wow', 'samples/wow/session.pcap'),
    seed('diep', 'test/fixtures/diep/pcap/sandbox-shared-compressor.pcap'),
    seed('diep', 'test/fixtures/diep/pcap/sandbox-shared-compressor.har'),
  ];
}

export function fuzz(data: Uint8Array): void {
  if (data.length === 0 || WITH_FILES.length === 0) return;
  const f = WITH_FILES[data[0]! % WITH_FILES.length]!;
  expectTotal(() => {
    const it = f.decodeFile!(data.subarray(1), {});
    if (it === undefined) return;
    let n = 0;
    for (const m of it) if (++n > 100_000 || m === undefined) break;
  });
}

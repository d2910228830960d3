/** Teeworlds / DDNet: a SnapshotReceiver fed SNAP / SNAPSINGLE / SNAPEMPTY messages; the first byte picks the version. */
import { SnapshotReceiver } from '../../src/protocols/teeworlds/index.js';
import { expectTotal, joinMessages, sampleLines, splitMessages } from '../common.js';

const VERSIONS = ['0.6', '0.7', 'ddnet'] as const;

export function seeds(): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const [v, file] of [
    [1, 'samples/teeworlds/tw075_live.hex'],
    [2, 'samples/teeworlds/ddnet164_live.hex'],
    [2, 'samples/teeworlds/ddnet164_multipart_shuffled.hex'],
  ] as const) {
    const lines = sampleLines(file);
    const joined = joinMessages(lines);
    const seed = new Uint8Array(joined.length + 1);
    seed[0] = v;
    seed.set(joined, 1);
    out.push(seed);
  }
  return out;
}

export function fuzz(data: Uint8Array): void {
  if (data.length === 0) return;
  const rx = new SnapshotReceiver(VERSIONS[data[0]! % 3]!);
  for (const m of splitMessages(data.subarray(1), 512)) expectTotal(() => void rx.receiveBytes(m));
}

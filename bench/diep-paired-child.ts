/**
 * The Diep "one path vs oracle" row, measured in a process of its own
 * (`node --import tsx bench/diep-paired-child.ts FILE NAME MS`; FILE holds the
 * 0x00 packets, each after its u32le length): `decodeUpdate` and the former object
 * reader (test/diep/oracle) in alternating rounds. In a process that first ran the
 * other Diep rows (the same reader with span sinks, the flat path, the store), the
 * one reader carries their type feedback and the oracle carries none, which is not
 * the comparison the row is for; as the LZ4 rows do, each side gets a fresh process.
 * Prints one BenchResult as JSON.
 */
import { readFileSync } from 'node:fs';
import { decodeUpdate } from '../src/protocols/diep/index.js';
import { oracleDecodeUpdate } from '../test/diep/oracle/update-objects.js';
import { measurePaired, type BenchResult } from './harness.js';

const [file, name, msArg] = process.argv.slice(2) as [string, string, string];
const all = new Uint8Array(readFileSync(file));
const packets: Uint8Array[] = [];
for (let p = 0; p + 4 <= all.length; ) {
  const n = new DataView(all.buffer, all.byteOffset + p).getUint32(0, true);
  packets.push(all.slice(p + 4, p + 4 + n));
  p += 4 + n;
}
const bytes = packets.reduce((n, b) => n + b.length, 0);
const ours = () => {
  let n = 0;
  for (let i = 0; i < packets.length; i++) n += decodeUpdate(packets[i]!).upcreates.length;
  return n;
};
const oracle = () => {
  let n = 0;
  for (let i = 0; i < packets.length; i++) n += oracleDecodeUpdate(packets[i]!).upcreates.length;
  return n;
};
const r = measurePaired(name, ours, oracle, Number(msArg) * 3, 2, 'wall');
const best = r.a.best;
const out: BenchResult = {
  group: 'diep',
  name,
  runs: 0,
  rounds: r.rounds,
  msPerRun: best,
  wallMsPerRun: best,
  mbps: bytes / 1e6 / (best / 1000),
  mbpsMin: bytes / 1e6 / (r.a.worst / 1000),
  paired: { vs: 'oracle', ratio: r.ratio, ratioMin: r.ratioMin, ratioMax: r.ratioMax, rounds: r.rounds, goal: 0.95 },
};
process.stdout.write(JSON.stringify(out));

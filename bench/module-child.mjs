// Child process of the CommonJS vs ESM rows (module-format.bench.ts), plain
// JavaScript run by plain node (no tsx hooks), so that the package is loaded
// exactly as a consumer's node loads it: `require()` of the single-file CJS
// build, or `import()` of the ESM build (one module per source file).
// It replays the Teeworlds fixture deltas as bench/teeworlds.bench.ts does
// (unpack + CRC, storage with recycling) and prints
// { msPerRun, worstMsPerRun, rounds, runs } by CPU time, best of 50 ms rounds.
//
// usage: node bench/module-child.mjs <cjs|esm> <teeworlds entry file> <steps.json> <ms>
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const [mode, entry, stepsFile, msArg] = process.argv.slice(2);
const tw = mode === 'cjs' ? createRequire(import.meta.url)(entry) : await import(pathToFileURL(entry).href);
const { Snapshot, SnapshotStorage, STATIC_SIZES, unpackDeltaBytes } = tw;
const steps = JSON.parse(readFileSync(stepsFile, 'utf8')).map((s) => ({
  ...s,
  blob: Uint8Array.from(Buffer.from(s.blob, 'hex')),
  sizes: STATIC_SIZES[s.version],
}));

function replay() {
  let ok = 0;
  let store = new SnapshotStorage({ recycle: true });
  let file = -1;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    if (s.file !== file) {
      file = s.file;
      store.clear();
      store = new SnapshotStorage({ recycle: true });
    }
    const base = s.deltaTick === -1 ? Snapshot.EMPTY : store.get(s.deltaTick);
    const snap = unpackDeltaBytes(base, s.blob, 0, s.blob.length, s.sizes);
    if (s.empty || snap.crc() === s.crc) ok++;
    if (s.deltaTick >= 0) store.purgeBefore(s.deltaTick);
    store.set(s.tick, snap);
  }
  store.clear();
  if (ok !== steps.length) throw new Error('CRC mismatch in the replay');
  return ok;
}

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const ms = Number(msArg);
let sink = 0;
const warmEnd = performance.now() + ms / 4;
while (performance.now() < warmEnd) sink += replay();
let best = Infinity;
let worst = 0;
let rounds = 0;
let total = 0;
const end = performance.now() + ms;
for (let round = 0; round < 5 || performance.now() < end; round++) {
  const t0 = performance.now();
  const c0 = cpuMs();
  let runs = 0;
  while (performance.now() - t0 < 50) {
    sink += replay();
    runs++;
  }
  const c = (cpuMs() - c0) / runs;
  if (c > 0) {
    best = Math.min(best, c);
    worst = Math.max(worst, c);
  }
  total += runs;
  rounds++;
}
process.stdout.write(JSON.stringify({ msPerRun: best, worstMsPerRun: worst, rounds, runs: total, sink: sink > 0 }));

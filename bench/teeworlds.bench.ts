/**
 * Teeworlds snapshot decoding: varint-decompress + unpack + CRC over the
 * fixture deltas replayed in order (every snapshot against its recorded base),
 * plus the pieces on their own and the producer side.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createDelta,
  createDeltaBytes,
  SnapshotProducer,
  decodeIntsInto,
  encodeInts,
  Snapshot,
  SnapshotReceiver,
  SnapshotStorage,
  STATIC_SIZES,
  unpackDeltaBytes,
  decodeSnapMessage,
  encodeSnapshotMessages,
  type TwVersion,
} from '../src/protocols/teeworlds/index.js';
import type { BenchCase } from './harness.js';

interface Entry {
  tick: number;
  deltaTick: number;
  crc: number;
  msg: string;
  varintBlobHex: string;
  resultItems: { type: number; id: number; data: number[] }[];
}

const dir = join(new URL('.', import.meta.url).pathname, '..', 'test', 'fixtures', 'teeworlds');
const FILES: [string, TwVersion][] = [
  ['tw075_live.json', '0.7'],
  ['ddnet164_live.json', 'ddnet'],
  ['ddnet164_multipart_live.json', 'ddnet'],
];

function hex(s: string): Uint8Array {
  const b = new Uint8Array(s.length / 2);
  for (let i = 0; i < b.length; i++) b[i] = parseInt(s.slice(i * 2, i * 2 + 2), 16);
  return b;
}

interface Step {
  file: number;
  tick: number;
  deltaTick: number;
  crc: number;
  empty: boolean;
  blob: Uint8Array;
  sizes: Int32Array;
}

export function cases(): BenchCase[] {
  const steps: Step[] = [];
  let bytes = 0;
  let items = 0;
  const snaps: { base: Snapshot; snap: Snapshot; sizes: Int32Array }[] = [];
  FILES.forEach(([f, v], fi) => {
    const entries = JSON.parse(readFileSync(join(dir, f), 'utf8')) as Entry[];
    const byTick = new Map<number, Snapshot>();
    for (const e of entries) {
      const blob = hex(e.varintBlobHex);
      steps.push({ file: fi, tick: e.tick, deltaTick: e.deltaTick, crc: e.crc, empty: e.msg === 'snap_empty', blob, sizes: STATIC_SIZES[v] });
      bytes += blob.length;
      items += e.resultItems.length;
      const snap = Snapshot.fromItems(e.resultItems);
      snaps.push({ base: e.deltaTick === -1 ? Snapshot.EMPTY : byTick.get(e.deltaTick)!, snap, sizes: STATIC_SIZES[v] });
      byTick.set(e.tick, snap);
    }
  });
  const nSnaps = steps.length;

  // The replay: each file's chain from the empty snapshot, each result stored
  // by tick and older bases purged as a client does (§6.2 step 13). With
  // `recycle`, purged snapshots give their memory back (SnapshotStorage's
  // recycling mode, what SnapshotReceiver({ recycle: true }) uses).
  const makeReplay = (recycle: boolean) => () => {
    let ok = 0;
    let store = new SnapshotStorage({ recycle });
    let file = -1;
    for (let i = 0; i < steps.length; i++) {
      const s = steps[i]!;
      if (s.file !== file) {
        file = s.file;
        store.clear();
        store = new SnapshotStorage({ recycle });
      }
      const base = s.deltaTick === -1 ? Snapshot.EMPTY : store.get(s.deltaTick)!;
      const snap = unpackDeltaBytes(base, s.blob, 0, s.blob.length, s.sizes);
      if (s.empty || snap.crc() === s.crc) ok++;
      if (s.deltaTick >= 0) store.purgeBefore(s.deltaTick);
      store.set(s.tick, snap);
    }
    store.clear();
    if (ok !== steps.length) throw new Error('CRC mismatch in bench replay');
    return ok;
  };
  const replay = makeReplay(true);
  const replayNoRecycle = makeReplay(false);

  const scratch = new Int32Array(65536);
  const decompressOnly = () => {
    let n = 0;
    for (let i = 0; i < steps.length; i++) n += decodeIntsInto(steps[i]!.blob, 0, steps[i]!.blob.length, scratch);
    return n;
  };

  // Full client path: messages (sliced at 900) through the receiver.
  const messages: { version: TwVersion; bytes: Uint8Array[] }[] = [];
  FILES.forEach(([, v], fi) => {
    for (const s of steps.filter((x) => x.file === fi)) {
      messages.push({ version: v, bytes: encodeSnapshotMessages(v, s.tick, s.deltaTick, s.crc, s.blob) });
    }
  });
  let msgBytes = 0;
  for (const m of messages) for (const b of m.bytes) msgBytes += b.length;
  const receiverPath = () => {
    let rx: SnapshotReceiver | undefined;
    let version: TwVersion | undefined;
    let done = 0;
    for (const m of messages) {
      if (m.version !== version || rx === undefined || m.bytes.length === 0) {
        /* new file starts with a full snapshot */
      }
      if (version !== m.version) {
        version = m.version;
        rx = new SnapshotReceiver(m.version);
      }
      for (const b of m.bytes) if (rx!.receiveBytes(b).status === 'complete') done++;
    }
    return done;
  };
  // reset receivers at file boundaries: the ddnet files are different connections
  const receiverPath2 = () => {
    let done = 0;
    let idx = 0;
    for (let fi = 0; fi < FILES.length; fi++) {
      const rx = new SnapshotReceiver(FILES[fi]![1], { recycle: true });
      const count = steps.filter((x) => x.file === fi).length;
      for (let k = 0; k < count; k++) for (const b of messages[idx + k]!.bytes) if (rx.receiveBytes(b).status === 'complete') done++;
      idx += count;
    }
    if (done !== nSnaps) throw new Error(`receiver completed ${done} of ${nSnaps}`);
    return done;
  };
  void receiverPath;
  void decodeSnapMessage;

  const create = () => {
    let n = 0;
    for (const s of snaps) {
      const d = createDelta(s.base, s.snap, s.sizes);
      if (d !== null) n += encodeInts(d).length;
    }
    return n;
  };

  const createFused = () => {
    let n = 0;
    for (const s of snaps) n += createDeltaBytes(s.base, s.snap, s.sizes).length;
    return n;
  };
  // the server side: delta, pack, slice and frame the messages, per fixture snapshot
  const producers = new Map<Int32Array, SnapshotProducer>();
  FILES.forEach(([, v]) => producers.set(STATIC_SIZES[v], new SnapshotProducer(v)));
  const produce = () => {
    let n = 0;
    snaps.forEach((s, i) => {
      for (const b of producers.get(s.sizes)!.encode(steps[i]!.tick, steps[i]!.deltaTick, s.base, s.snap).bytes) n += b.length;
    });
    return n;
  };
  const producedBytes = produce();

  return [
    {
      group: 'teeworlds',
      name: `replay fixture deltas: decompress+unpack+CRC (${nSnaps} snaps, ${bytes} B)`,
      bytes,
      items,
      itemUnit: 'items',
      target: { mbps: 220, itemsPerSec: 35e6 },
      fn: replay,
    },
    { group: 'teeworlds', name: 'replay: snapshots/s', items: nSnaps, itemUnit: 'snaps', fn: replay },
    { group: 'teeworlds', name: 'replay, storage without recycling', bytes, items, itemUnit: 'items', fn: replayNoRecycle },
    { group: 'teeworlds', name: 'varint decompress only', bytes, fn: decompressOnly },
    { group: 'teeworlds', name: `receiver: messages -> verified snapshots (${msgBytes} B)`, bytes: msgBytes, items, itemUnit: 'items', fn: receiverPath2 },
    { group: 'teeworlds', name: 'producer: createDelta + pack (two passes, reference)', bytes, items, itemUnit: 'items', fn: create },
    { group: 'teeworlds', name: 'delta creation + pack, fused (createDeltaBytes)', bytes, items, itemUnit: 'items', target: { mbps: 250 }, fn: createFused },
    {
      group: 'teeworlds',
      name: `SnapshotProducer.encode: messages out (${producedBytes} B)`,
      bytes: producedBytes,
      items,
      itemUnit: 'items',
      target: { mbps: 100 },
      fn: produce,
    },
  ];
}

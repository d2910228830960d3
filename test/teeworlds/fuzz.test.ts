import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DecodeError } from '../../src/core/index.js';
import {
  decodeInts,
  decodeMessageHeader,
  decodeSnapMessage,
  describeDelta,
  encodeSnapshotMessages,
  Snapshot,
  SnapshotReceiver,
  STATIC_SIZES,
  TW_VERSIONS,
  typedItems,
  unpackDeltaBytes,
  applyDelta,
  Unpacker,
  type TwVersion,
} from '../../src/protocols/teeworlds/index.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { blob, LIVE, loadLive } from './helpers.js';

/** Run `fn`; it may return anything or throw a DecodeError, nothing else. */
function total(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    assert.equal(typeof e.offset, 'number');
    assert.ok(e.message.length > 0);
  }
}

// Messages and delta blobs of every live fixture, with their bases.
const CORPUS: { version: TwVersion; base: Snapshot; blob: Uint8Array; msgs: Uint8Array[] }[] = [];
for (const [file, version] of LIVE) {
  const store = new Map<number, Snapshot>();
  for (const e of loadLive(file)) {
    const base = e.deltaTick === -1 ? Snapshot.EMPTY : store.get(e.deltaTick)!;
    const b = blob(e);
    CORPUS.push({ version, base, blob: b, msgs: encodeSnapshotMessages(version, e.tick, e.deltaTick, e.crc, b) });
    store.set(e.tick, unpackDeltaBytes(base, b, 0, b.length, STATIC_SIZES[version]));
  }
}

function mutate(b: Uint8Array, edits: [number, number][], cut: number): Uint8Array {
  const out = b.slice(0, b.length === 0 ? 0 : cut % (b.length + 1));
  for (const [i, v] of edits) if (out.length > 0) out[i % out.length] = v;
  return out;
}

const versionArb = fc.constantFrom(...TW_VERSIONS);

test('fuzz: random bytes as messages, headers, int streams and deltas give values or DecodeErrors', () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 300 }), versionArb, fc.constantFrom<'ddnet' | 'vanilla'>('ddnet', 'vanilla'), (b, v, mode) => {
      total(() => decodeSnapMessage(b, v, { mode }));
      total(() => decodeMessageHeader(b, mode));
      total(() => decodeInts(b, 0, b.length, mode));
      total(() => unpackDeltaBytes(Snapshot.EMPTY, b, 0, b.length, STATIC_SIZES[v], mode));
      total(() => describeDelta(decodeInts(b), STATIC_SIZES[v]));
      const u = new Unpacker(b);
      total(() => {
        u.int();
        u.string();
        u.raw(u.int());
      });
      const rx = new SnapshotReceiver(v, { mode });
      total(() => rx.receiveBytes(b));
    }),
    { numRuns: 3000 },
  );
});

test('fuzz: random int arrays as deltas against fixture bases', () => {
  const bases = CORPUS.map((c) => [c.base, c.version] as const);
  fc.assert(
    fc.property(
      fc.nat(bases.length - 1),
      fc.array(fc.oneof(fc.integer({ min: -3, max: 40 }), fc.integer({ min: 0, max: 0x7fff }), fc.integer()), { maxLength: 120 }),
      (bi, ints) => {
        const [base, v] = bases[bi]!;
        total(() => {
          const s = applyDelta(base, ints, v);
          assert.equal(s.crc(), s.crcFull());
          typedItems(v, s);
        });
      },
    ),
    { numRuns: 3000 },
  );
});

test('fuzz: mutated and truncated fixture messages and deltas', () => {
  fc.assert(
    fc.property(fc.nat(CORPUS.length - 1), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 4 }), fc.nat(), (ci, edits, cut) => {
      const c = CORPUS[ci]!;
      const b = mutate(c.blob, edits, cut);
      total(() => {
        const s = unpackDeltaBytes(c.base, b, 0, b.length, STATIC_SIZES[c.version]);
        assert.equal(s.crc(), s.crcFull());
      });
      const rx = new SnapshotReceiver(c.version);
      for (const m of c.msgs) {
        const mm = mutate(m, edits, cut + m.length);
        total(() => rx.receiveBytes(mm));
      }
    }),
    { numRuns: 3000 },
  );
});

test('fuzz: the CLI decoder over mutated sample streams only throws DecodeError', () => {
  fc.assert(
    fc.property(
      versionArb,
      fc.array(fc.tuple(fc.nat(CORPUS.length - 1), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { maxLength: 2 }), fc.nat()), { maxLength: 8 }),
      (v, picks) => {
        const dec = teeworlds.createDecoder({ version: v });
        for (const [ci, edits, cut] of picks) {
          for (const m of CORPUS[ci]!.msgs) {
            const mm = edits.length === 0 ? m : mutate(m, edits, cut + m.length);
            total(() => {
              dec.decode(mm);
              dec.state?.();
            });
          }
        }
      },
    ),
    { numRuns: 300 },
  );
});

/**
 * Captures with many conversations: the snapshot receivers kept at once are bounded
 * (count and bytes), and the state table after a datagram costs no more than its
 * own conversation's rows.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildUdpIpv4, LINKTYPE_RAW, writePcap } from '../../src/core/pcap.js';
import { teeworlds } from '../../src/families/teeworlds.js';
import { encodeSnapshotMessages } from '../../src/protocols/teeworlds/codec.js';
import { createDeltaBytes, STATIC_SIZES } from '../../src/protocols/teeworlds/delta.js';
import { decodeTeeworldsCapture, type CaptureOptions } from '../../src/protocols/teeworlds/net/capture.js';
import { encodeChunks, encodePacket } from '../../src/protocols/teeworlds/net/packet.js';
import { Snapshot } from '../../src/protocols/teeworlds/snapshot.js';

const SERVER = '10.0.0.1';

/** A 0.6 datagram from the server to client port `port` carrying one chunk. */
function toClient(port: number, msg: Uint8Array): Uint8Array {
  const payload = encodePacket(
    {
      connless: false,
      control: false,
      resend: false,
      compression: false,
      ack: 0,
      numChunks: 1,
      payload: encodeChunks([{ vital: false, resend: false, data: msg }], '0.6'),
    },
    { version: '0.6' },
  );
  return buildUdpIpv4(SERVER, 8303, '10.0.0.2', port, payload);
}

const snap = (n: number, v = 0) => Snapshot.fromItems(Array.from({ length: n }, (_, i) => ({ type: 30, id: i, data: [v, i] })));

/** The messages of a full snapshot at `tick` and of a delta on it at `tick + 1`. */
function fullAndDelta(tick: number, items = 4): { full: Uint8Array[]; delta: Uint8Array[] } {
  const a = snap(items);
  const b = snap(items, 1);
  return {
    full: encodeSnapshotMessages('0.6', tick, -1, a.crc(), createDeltaBytes(Snapshot.EMPTY, a, STATIC_SIZES['0.6'])),
    delta: encodeSnapshotMessages('0.6', tick + 1, tick, b.crc(), createDeltaBytes(a, b, STATIC_SIZES['0.6'])),
  };
}

/** Conversation 0 gets a full snapshot, then `others` other conversations each one, then conversation 0 a delta on its full one. */
function pcapOf(others: number): Uint8Array {
  const { full, delta } = fullAndDelta(10);
  const frames: Uint8Array[] = [];
  for (const m of full) frames.push(toClient(20000, m));
  for (let c = 1; c <= others; c++) for (const m of full) frames.push(toClient(20000 + c, m));
  for (const m of delta) frames.push(toClient(20000, m));
  return writePcap(
    frames.map((data, i) => ({ time: i, data })),
    LINKTYPE_RAW,
  );
}

function last(file: Uint8Array, opts: Partial<CaptureOptions> = {}) {
  const all = [...decodeTeeworldsCapture(file, { version: '0.6', server: `${SERVER}:8303`, ...opts })];
  return all[all.length - 1]!;
}

test('capture: receivers are bounded by maxReceivers (least recently used dropped; its next delta is a missing-base error, not a throw)', () => {
  // within the cap: the delta decodes
  const ok = last(pcapOf(3), { maxReceivers: 4 });
  assert.equal(ok.error, undefined);
  assert.equal(ok.snapshots.length, 1);
  assert.equal(ok.snapshots[0]!.tick, 11);
  // one conversation more: conversation 0's receiver went
  const dropped = last(pcapOf(4), { maxReceivers: 4 });
  assert.equal(dropped.snapshots.length, 0);
  assert.match(dropped.error ?? '', /^snapshot 11: missing-base \(its stored snapshots were dropped/);
});

test('capture: the default cap is 256 receivers', () => {
  assert.equal(last(pcapOf(255)).error, undefined);
  assert.match(last(pcapOf(256)).error ?? '', /^snapshot 11: missing-base/);
});

test('capture: receivers are bounded by maxReceiverBytes; the current one stays', () => {
  // a budget below one receiver's bytes: every new conversation drops the others, never its own
  assert.match(last(pcapOf(1), { maxReceiverBytes: 1 }).error ?? '', /^snapshot 11: missing-base/);
  const alone = last(pcapOf(0), { maxReceiverBytes: 1 });
  assert.equal(alone.error, undefined);
  assert.equal(alone.snapshots[0]!.tick, 11);
  assert.equal(last(pcapOf(20), { maxReceiverBytes: 1 << 30 }).error, undefined);
});

test('capture: a dropped conversation starts over with its next full snapshot', () => {
  const { full, delta } = fullAndDelta(10);
  const again = fullAndDelta(20);
  const frames: Uint8Array[] = [];
  for (const m of full) frames.push(toClient(20000, m));
  for (const m of full) frames.push(toClient(20001, m));
  for (const m of delta) frames.push(toClient(20000, m));
  for (const m of [...again.full, ...again.delta]) frames.push(toClient(20000, m));
  const file = writePcap(
    frames.map((data, i) => ({ time: i, data })),
    LINKTYPE_RAW,
  );
  const ds = [...decodeTeeworldsCapture(file, { version: '0.6', server: `${SERVER}:8303`, maxReceivers: 1 })];
  assert.deepEqual(
    ds.map((d) => [d.snapshots.map((s) => s.tick), d.error === undefined ? '' : d.error.slice(0, 25)]),
    [
      [[10], ''],
      [[10], ''],
      [[], 'snapshot 11: missing-base'],
      [[20], ''],
      [[21], ''],
    ],
  );
});

test('capture state: each datagram lists its own conversation rows only (linear, not datagrams × conversations × items)', () => {
  const items = 10;
  const convs = 20;
  const extra = 50;
  const a = snap(items);
  const full = encodeSnapshotMessages('0.6', 10, -1, a.crc(), createDeltaBytes(Snapshot.EMPTY, a, STATIC_SIZES['0.6']));
  const frames: Uint8Array[] = [];
  for (let c = 0; c < convs; c++) for (const m of full) frames.push(toClient(20000 + c, m));
  // keep-alive-sized datagrams of the first conversation
  for (let k = 0; k < extra; k++) frames.push(buildUdpIpv4(SERVER, 8303, '10.0.0.2', 20000, new Uint8Array(3)));
  const file = writePcap(
    frames.map((data, i) => ({ time: i, data })),
    LINKTYPE_RAW,
  );
  const tables = [...teeworlds.decodeFile!(file, { pcap: 'x', version: '0.6', server: `${SERVER}:8303` }, { spans: false, state: true })!].map((m) => m.state!);
  assert.equal(tables.length, convs + extra);
  // before: 10 × (1 + 2 + … + 20) + 50 × 200 = 12,100 rows
  assert.equal(
    tables.reduce((n, t) => n + t.rows.length, 0),
    (convs + extra) * items,
  );
  // the first client's ids plain, the others' prefixed; a conversation's snapshot marks its rows created
  assert.deepEqual(
    tables[0]!.rows.map((r) => [r.id, r.created]),
    Array.from({ length: items }, (_, i) => [`30:${i}`, true]),
  );
  assert.equal(tables[1]!.rows[0]!.id, '10.0.0.2:20001 30:0');
  assert.equal(tables[1]!.rows[0]!.created, true);
  // a datagram without a snapshot: its conversation's table, unmarked
  const ka = tables[convs + 1]!;
  assert.deepEqual(
    ka.rows.map((r) => [r.id, r.created ?? false, r.changed.length]),
    Array.from({ length: items }, (_, i) => [`30:${i}`, false, 0]),
  );
});

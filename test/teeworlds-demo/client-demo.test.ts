/**
 * A demo recorded by the real Teeworlds 0.7.5 client with its `record` console
 * command, while connected to Debian's teeworlds-server 0.7.5 with two of our
 * bots on it, and the same session captured with tcpdump (the real client's
 * conversation only). See test/fixtures/teeworlds/demos/README.md.
 *
 * The demo format stores no snapshot CRC; the capture does (in every SNAP and
 * SNAPSINGLE). So the demo's snapshots are checked against the server's: at
 * every tick the client recorded, the demo's snapshot — less the items the
 * client adds for demos only (De_ClientInfo, De_GameInfo, De_TuneParams) — is
 * the snapshot rebuilt from the capture, whose CRC the server sent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decodeTeeworldsCapture, demoEvents, readDemoInfo, Snapshot, type CapturedSnapshot } from '../../src/protocols/teeworlds/index.js';
import { rewrite } from './rewrite.js';

const FIX = new URL('../fixtures/teeworlds/demos/', import.meta.url);
const demo = new Uint8Array(readFileSync(new URL('tw075-client-record-dm1.demo', FIX)));
const pcap = new Uint8Array(readFileSync(new URL('tw075-client-record-dm1.pcap', FIX)));
/** 0.7 item types the client adds to the snapshots it records (De_ClientInfo, De_GameInfo, De_TuneParams). */
const DEMO_ONLY = new Set([13, 14, 15]);

test('teeworlds demo: the real 0.7.5 client-recorded demo: every snapshot unpacks and equals the server snapshot of its tick, with the CRC the server sent', () => {
  const info = readDemoInfo(demo);
  assert.equal(info.header.type, 'client');
  assert.equal(info.header.version, 4);
  assert.equal(info.header.netVersion, '0.7 802f1be60a05665f');
  assert.equal(info.codec, '0.7');
  assert.equal(info.header.mapName, 'dm1');
  assert.equal(info.mapCrcOk, true);
  const snaps = [...demoEvents(demo, info)].filter((e) => e.kind !== 'message');
  assert.ok(snaps.length >= 40, `${snaps.length} snapshots`);
  assert.ok(snaps.filter((e) => e.kind === 'snapshot').length >= 3, 'keyframes');
  assert.ok(snaps.filter((e) => e.kind === 'delta').length >= 30, 'deltas');
  // The real client's conversation, rebuilt from the capture: one client, every snapshot's CRC right.
  const net = new Map<number, CapturedSnapshot>();
  const clients = new Set<string>();
  let errors = 0;
  for (const d of decodeTeeworldsCapture(pcap, { version: '0.7' })) {
    clients.add(d.client);
    if (d.error !== undefined) errors++;
    for (const s of d.snapshots) net.set(s.tick, s);
  }
  assert.equal(clients.size, 1);
  assert.equal(errors, 0);
  assert.ok(net.size > 500, `${net.size} snapshots in the capture`);
  assert.ok([...net.values()].every((s) => s.crcOk));
  let equal = 0;
  let crcCompared = 0;
  const names = new Set<string>();
  for (const e of snaps) {
    const n = net.get(e.tick);
    assert.ok(n !== undefined, `the server sent tick ${e.tick}`);
    const items = e.snapshot.items();
    for (const it of items)
      if (it.type === 13)
        names.add(
          String.fromCharCode(
            ...it.data.slice(2, 6).flatMap((v) => [(v >>> 24) & 0xff, (v >>> 16) & 0xff, (v >>> 8) & 0xff, v & 0xff].map((c) => (c - 128) & 0xff)),
          ).replace(/\0.*$/, ''),
        );
    assert.ok(
      items.some((it) => DEMO_ONLY.has(it.type)),
      `tick ${e.tick}: the client's demo-only items`,
    );
    const game = Snapshot.fromItems(items.filter((it) => !DEMO_ONLY.has(it.type)));
    assert.ok(game.equals(n.snapshot), `tick ${e.tick}: the demo's snapshot is the server's`);
    equal++;
    // SNAPEMPTY carries no CRC; the others carry the one the server computed.
    if (n.kind !== 'snap_empty') {
      assert.equal(game.crc() | 0, n.crc | 0, `tick ${e.tick}: CRC`);
      crcCompared++;
    }
  }
  assert.equal(equal, snaps.length);
  assert.ok(crcCompared >= snaps.length - 5, `${crcCompared} of ${snaps.length} CRCs compared`);
  // The players: our two bots and the real client.
  assert.deepEqual([...names].sort(), ['alpha', 'beta', 'realrec']);
});

test('teeworlds demo: rewriting the real 0.7.5 client-recorded demo with our writer gives the same bytes', () => {
  const out = rewrite(demo, readDemoInfo(demo));
  assert.equal(out.length, demo.length);
  assert.ok(Buffer.from(out).equals(Buffer.from(demo)));
});

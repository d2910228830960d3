import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { DecodeError } from '../../src/core/errors.js';
import { readHarWebSockets, decodeBase64, writeHarWebSockets } from '../../src/core/har.js';
import { frameToTcp, tcpEventStream, TcpReassembler, type TcpEvent } from '../../src/core/tcp.js';
import { readCapture, writePcap, LINKTYPE_RAW } from '../../src/core/pcap.js';
import { run } from '../../src/cli/main.js';
import {
  DiepCaptureReader,
  decodeClientbound,
  encodeClientbound,
  encodeServerbound,
  EntityStore,
  type ClientboundPacket,
  type DiepCaptureItem,
  type DiepMessageItem,
  type ServerboundPacket,
} from '../../src/protocols/diep/index.js';
import { fakeIo } from '../helpers/cli-io.js';
import { rng } from '../helpers/rng.js';
import { concat, PmdWriter, tcpIpv4, tcpSessionPcap, upgradeRequest, upgradeResponse, writeMessage } from './ws-helpers.js';

const FIX = new URL('../fixtures/diep/pcap/', import.meta.url);
const read = (name: string) => new Uint8Array(readFileSync(new URL(name, FIX)));
const items = (it: Iterable<DiepCaptureItem>) => [...it];
const messagesOf = (xs: DiepCaptureItem[]) => xs.filter((x): x is DiepMessageItem => x.kind === 'message');
const typeCount = (xs: DiepMessageItem[], dir: string, type: string) => xs.filter((m) => m.direction === dir && m.packet?.type === type).length;

for (const [file, path, ctx] of [
  ['sandbox-shared-compressor.pcap', '/sandbox', false],
  ['ffa-dedicated-compressor.pcap', '/ffa', true],
] as const) {
  test(`diep capture: the real ${file} decodes, every message round-trips through the codec, the store stays consistent`, () => {
    const reader = new DiepCaptureReader();
    const xs = items(reader.pcap(read(file)));
    const conns = xs.filter((x) => x.kind === 'connection');
    assert.equal(conns.length, 1);
    const conn = conns[0]!;
    assert.equal(conn.kind === 'connection' && conn.url, path);
    assert.equal(conn.kind === 'connection' && conn.server?.port, 8080);
    assert.equal(conn.kind === 'connection' && conn.deflate?.serverNoContextTakeover, !ctx);
    assert.equal(conn.kind === 'connection' && conn.deflate?.clientNoContextTakeover, !ctx);
    assert.deepEqual(
      xs.filter((x) => x.kind === 'problem'),
      [],
    );
    const ms = messagesOf(xs);
    assert.ok(ms.length > 400, `${ms.length} messages`);
    for (const m of ms) {
      assert.equal(m.error, undefined, m.error?.message);
      // Byte for byte through our encoder.
      const again = m.direction === 'clientbound' ? encodeClientbound(m.packet as ClientboundPacket) : encodeServerbound(m.packet as ServerboundPacket);
      assert.deepEqual(again, m.data, `${m.direction} #${m.index} ${m.packet?.type}`);
    }
    // What the scripted client did (see the fixture's README) and the server's answers.
    assert.equal(typeCount(ms, 'serverbound', 'Init'), 1);
    assert.equal(typeCount(ms, 'serverbound', 'Spawn'), 1);
    assert.equal(typeCount(ms, 'serverbound', 'StatUpgrade'), 1);
    assert.deepEqual(
      ['ServerInfo', 'PlayerCount', 'Accept'],
      ms
        .filter((m) => m.direction === 'clientbound')
        .slice(0, 3)
        .map((m) => m.packet?.type),
    );
    assert.equal(typeCount(ms, 'clientbound', 'Heartbeat'), typeCount(ms, 'serverbound', 'Heartbeat'));
    const ctl = xs.filter((x) => x.kind === 'control');
    const count = (k: string, d: string) => ctl.filter((c) => c.kind === 'control' && c.control === k && c.direction === d).length;
    assert.ok(count('ping', 'serverbound') >= 1);
    assert.equal(count('pong', 'clientbound'), count('ping', 'serverbound'));
    const closes = ctl.filter((c) => c.kind === 'control' && c.control === 'close');
    assert.deepEqual(
      closes.map((c) => c.kind === 'control' && [c.direction, c.code]),
      [
        ['serverbound', 1000],
        ['clientbound', 1000],
      ],
    );
    // Fragmented and uncompressed inputs, as the client sent them (every 37th in two frames, every 41st uncompressed).
    const inputs = ms.filter((m) => m.direction === 'serverbound' && m.packet?.type === 'Input');
    assert.ok(inputs.filter((m) => m.frames === 2).length >= 5);
    assert.ok(inputs.filter((m) => !m.compressed).length >= 5);
    assert.ok(ms.filter((m) => m.direction === 'clientbound').every((m) => m.compressed));
    // The store: consecutive ticks, no issue in any update, our tank present at the end.
    const updates = ms.filter((m) => m.applied !== undefined);
    assert.ok(updates.length > 200);
    for (let i = 1; i < updates.length; i++) assert.equal(updates[i]!.applied!.tick, updates[i - 1]!.applied!.tick + 1);
    assert.deepEqual(
      updates.flatMap((m) => m.applied!.issues.map((x) => x.message)),
      [],
    );
    const store = reader.store(0)!;
    const names = [...store.entities.values()].map((e) => store.field(e, 'name.name')).filter((n) => n !== undefined);
    assert.ok(names.includes('tickwire'), JSON.stringify(names));
    // The same store as applying the updates to a fresh store from the bare payloads.
    const fresh = new EntityStore();
    for (const m of updates) {
      const p = decodeClientbound(m.data);
      fresh.apply((p.type === 'Compressed' ? p.inner : p) as never);
    }
    assert.equal(fresh.issues.length, 0);
    assert.deepEqual([...fresh.entities.keys()].sort(), [...store.entities.keys()].sort());
    for (const [id, e] of fresh.entities) assert.deepEqual(store.entities.get(id)!.values, e.values);
  });
}

test('diep capture: the HAR made from the sandbox capture gives the same messages, packets and store', () => {
  const fromPcap = messagesOf(items(new DiepCaptureReader().pcap(read('sandbox-shared-compressor.pcap'))));
  const hr = new DiepCaptureReader();
  const xs = items(hr.har(read('sandbox-shared-compressor.har')));
  assert.equal(xs[0]!.kind === 'connection' && xs[0]!.url, 'ws://127.0.0.1:8080/sandbox');
  const fromHar = messagesOf(xs);
  assert.equal(fromHar.length, fromPcap.length);
  for (let i = 0; i < fromHar.length; i++) {
    const a = fromHar[i]!;
    const b = fromPcap[i]!;
    assert.deepEqual([a.direction, a.index, a.time, a.data, a.packet, a.applied?.tick], [b.direction, b.index, b.time, b.data, b.packet, b.applied?.tick]);
  }
  assert.equal(hr.store(0)!.entities.size, new DiepCaptureReader().store(0) === undefined ? hr.store(0)!.entities.size : -1);
});

test('diep capture: CLI decode diep --pcap / --har / a capture as FILE', async () => {
  const file = new URL('sandbox-shared-compressor.pcap', FIX).pathname;
  let f = fakeIo();
  assert.equal(await run(['decode', 'diep', '--pcap', file, '--format', 'jsonl'], f.io), 0);
  const recs = f
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.equal(recs[0].record, 'connection');
  assert.equal(recs.filter((r) => r.record === 'message').length, 673);
  assert.deepEqual(recs[1].packet.type, 'Init');
  f = fakeIo();
  assert.equal(await run(['decode', 'diep', file, '--format', 'jsonl'], f.io), 0);
  assert.equal(f.text().trim().split('\n').length, recs.length);
  f = fakeIo();
  assert.equal(await run(['decode', 'diep', '--har', new URL('sandbox-shared-compressor.har', FIX).pathname, '--format', 'jsonl'], f.io), 0);
  const h = f
    .text()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  assert.deepEqual(
    h.filter((r) => r.record === 'message').map((r) => r.packet),
    recs.filter((r) => r.record === 'message').map((r) => r.packet),
  );
  // A HAR that is not JSON: one line, exit 1.
  f = fakeIo('{"log": [');
  assert.equal(await run(['decode', 'diep', '--har', '-'], f.io), 1);
  assert.match(f.err.join(''), /JSON/);
});

/** Our own messages: the real sandbox messages re-encoded by our codec, and serverbound packets from our encoder. */
function ourMessages(): { cb: Uint8Array[]; sb: Uint8Array[] } {
  const dir = new URL('../fixtures/diep/captures/sandbox_nospawn/', import.meta.url);
  const cb = readdirSync(dir)
    .filter((n) => /^\d+_[0-9a-f]{2}\.bin$/.test(n))
    .sort()
    .map((n) => encodeClientbound(decodeClientbound(new Uint8Array(readFileSync(new URL(n, dir))))));
  const sb: Uint8Array[] = [
    encodeServerbound({ type: 'Init', build: '6f59094d60f98fafc14371671d3ff31ef4d75d9e', password: '', partyCode: '', playerToken: '', debug: 0 }),
  ];
  for (let i = 0; i < 60; i++) sb.push(encodeServerbound({ type: 'Input', flags: i & 31, mouseX: i * 10.5, mouseY: -i }));
  sb.push(encodeServerbound({ type: 'Spawn', name: 'synthetic' }), encodeServerbound({ type: 'Heartbeat' }));
  return { cb, sb };
}

test('diep capture: our messages in WebSocket frames (random fragmentation, masking, compression with/without context takeover) in reordered, duplicated TCP segments', () => {
  const { cb, sb } = ourMessages();
  const exts = [
    '',
    'permessage-deflate',
    'permessage-deflate; client_no_context_takeover; server_no_context_takeover',
    'permessage-deflate; server_no_context_takeover',
  ];
  for (let seed = 1; seed <= 24; seed++) {
    const r = rng(seed);
    const ext = exts[seed % exts.length]!;
    const client = { masked: true, pmd: ext ? new PmdWriter(!ext.includes('client_no')) : undefined, controlRate: 0.05 };
    const server = { masked: false, pmd: ext ? new PmdWriter(!ext.includes('server_no')) : undefined, controlRate: 0.05 };
    const cw: Uint8Array[] = [upgradeRequest('/sandbox', ext || undefined)];
    const sw: Uint8Array[] = [upgradeResponse(ext || undefined)];
    for (const m of sb) cw.push(...writeMessage(r, m, client).bytes);
    for (const m of cb) sw.push(...writeMessage(r, m, server).bytes);
    const pcap = tcpSessionPcap(r, [[concat(cw)], [concat(sw)]], { maxSeg: 1 + Math.floor(r() * 1400), reorder: 0.2, duplicate: 0.1 });
    const reader = new DiepCaptureReader();
    const xs = items(reader.pcap(pcap));
    assert.deepEqual(
      xs.filter((x) => x.kind === 'problem').map((x) => x.kind === 'problem' && x.error.message),
      [],
      `seed ${seed}`,
    );
    const ms = messagesOf(xs);
    assert.deepEqual(
      ms.filter((m) => m.direction === 'serverbound').map((m) => m.data),
      sb,
      `seed ${seed}`,
    );
    assert.deepEqual(
      ms.filter((m) => m.direction === 'clientbound').map((m) => m.data),
      cb,
      `seed ${seed}`,
    );
    assert.ok(ms.every((m) => m.error === undefined));
    assert.equal(reader.store(0)!.lastTick, 75);
  }
});

test('diep capture: a lost TCP segment is reported as a gap and ends that direction only', () => {
  const { cb, sb } = ourMessages();
  const r = rng(5);
  const cw = concat([upgradeRequest('/sandbox'), ...sb.flatMap((m) => writeMessage(r, m, { masked: true }).bytes)]);
  const sw = concat([upgradeResponse(), ...cb.flatMap((m) => writeMessage(r, m, { masked: false }).bytes)]);
  const cap = readCapture(tcpSessionPcap(r, [[cw], [sw]], { maxSeg: 200 }));
  // Drop one server data segment in the middle.
  const serverData = cap.frames.map((f, i) => ({ s: frameToTcp(f, i)!, i })).filter((x) => x.s.srcPort === 8080 && x.s.payload.length > 0);
  const dropped = serverData[Math.floor(serverData.length / 2)]!;
  const drop = dropped.i;
  const pcap = writePcap(
    cap.frames.filter((_, i) => i !== drop),
    LINKTYPE_RAW,
  );
  const xs = items(new DiepCaptureReader().pcap(pcap));
  const probs = xs.filter((x) => x.kind === 'problem');
  assert.equal(probs.length, 1);
  assert.ok(probs[0]!.kind === 'problem' && probs[0]!.fatal && probs[0]!.error.found === `a gap of ${dropped.s.payload.length} bytes`, JSON.stringify(probs));
  const ms = messagesOf(xs);
  assert.deepEqual(
    ms.filter((m) => m.direction === 'serverbound').map((m) => m.data),
    sb,
  );
  const got = ms.filter((m) => m.direction === 'clientbound').map((m) => m.data);
  assert.ok(got.length > 10 && got.length < cb.length);
  assert.deepEqual(got, cb.slice(0, got.length));
});

test('tcp (the one reassembler) on Diep-style sessions: bytes in order whatever the segment order, retransmissions, overlaps and sequence wrap; held-back segments are capped', () => {
  for (let seed = 1; seed <= 50; seed++) {
    const r = rng(seed);
    const a = Uint8Array.from({ length: 1 + Math.floor(r() * 5000) }, () => Math.floor(r() * 256));
    const b = Uint8Array.from({ length: Math.floor(r() * 5000) }, () => Math.floor(r() * 256));
    const pcap = tcpSessionPcap(r, [[a], [b]], {
      maxSeg: 1 + Math.floor(r() * 300),
      reorder: 0.5,
      duplicate: 0.3,
      isn: [0xfffff000 + Math.floor(r() * 4096), Math.floor(r() * 2 ** 32)],
    });
    const got: Uint8Array[][] = [[], []];
    for (const e of tcpEventStream(readCapture(pcap))) {
      assert.notEqual(e.type, 'gap');
      if (e.type === 'data') got[e.dir]!.push(e.data);
    }
    assert.deepEqual(concat(got[0]!), a, `seed ${seed}`);
    assert.deepEqual(concat(got[1]!), b, `seed ${seed}`);
  }
  // A segment far ahead never filled: with at most one segment held back it is given up as a gap.
  const out: TcpEvent[] = [];
  const t = new TcpReassembler((e) => out.push(e), { maxPendingSegments: 1 });
  const seg = (seq: number, n: number, flags = 0x18) =>
    frameToTcp({ time: 0, linkType: LINKTYPE_RAW, data: tcpIpv4('1.1.1.1', 1, '2.2.2.2', 2, seq, flags, new Uint8Array(n)), originalLength: 0, offset: 0 })!;
  for (const s of [seg(99, 0, 0x02), seg(100, 10), seg(500, 600), seg(1100, 600)]) t.push(s);
  assert.deepEqual(
    out.map((e) => [e.type, e.type === 'data' ? e.data.length : e.type === 'gap' ? e.length : undefined]),
    [
      ['open', undefined],
      ['data', 10],
      ['gap', 390],
      ['data', 600],
      ['data', 600],
    ],
  );
});

test('har: Chrome-style _webSocketMessages, base64, and errors with the JSON path', () => {
  assert.deepEqual(decodeBase64('AAEC/w=='), new Uint8Array([0, 1, 2, 255]));
  assert.deepEqual(decodeBase64('AAEC_w'), new Uint8Array([0, 1, 2, 255]));
  assert.throws(() => decodeBase64('AA*A'), DecodeError);
  const har = writeHarWebSockets([
    {
      url: 'wss://x/ffa',
      messages: [
        { type: 'send', time: 1.5, opcode: 2, data: new Uint8Array([5]) },
        { type: 'receive', time: 2, opcode: 1, data: new TextEncoder().encode('hi') },
      ],
    },
  ]);
  const ws = readHarWebSockets(new TextEncoder().encode(har));
  assert.deepEqual(
    ws[0]!.messages.map((m) => [m.type, m.time, m.opcode, [...m.data]]),
    [
      ['send', 1.5, 2, [5]],
      ['receive', 2, 1, [104, 105]],
    ],
  );
  const bad = JSON.stringify({ log: { entries: [{}, { _webSocketMessages: [{ type: 'send', opcode: 2, data: '!!' }] }] } });
  assert.throws(
    () => readHarWebSockets(new TextEncoder().encode(bad)),
    (e: unknown) => e instanceof DecodeError && e.path === 'log.entries[1]._webSocketMessages[0].data',
  );
  // Through the Diep reader: a text message is not decoded, the heartbeat is.
  const xs = items(new DiepCaptureReader().har(new TextEncoder().encode(har)));
  const ms = messagesOf(xs);
  assert.equal(ms[0]!.packet?.type, 'Heartbeat');
  assert.ok(ms[1]!.error instanceof DecodeError);
});

function mutate(r: () => number, src: Uint8Array, alphabet?: string): Uint8Array {
  const b = src.slice();
  for (let k = 1 + Math.floor(r() * 3); k > 0; k--) {
    const at = Math.floor(r() * b.length);
    b[at] = alphabet !== undefined && r() < 0.5 ? alphabet.charCodeAt(Math.floor(r() * alphabet.length)) : Math.floor(r() * 256);
  }
  return r() < 0.2 ? b.subarray(0, Math.floor(r() * b.length)) : b;
}

/** Runs a reader over 100k mutations of `src`; every run ends in items or a DecodeError. */
function fuzzReader(src: Uint8Array, seed: number, read: (b: Uint8Array) => Iterable<DiepCaptureItem>, alphabet?: string): { ok: number; failed: number } {
  const r = rng(seed);
  let ok = 0;
  let failed = 0;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // errors are counted, not printed: skip building their stacks
  try {
    for (let i = 0; i < 100000; i++) {
      try {
        let n = 0;
        for (const x of read(mutate(r, src, alphabet))) {
          n++;
          if (x.kind === 'message') assert.ok(x.error === undefined || x.error instanceof DecodeError);
        }
        assert.ok(n < 1000);
        ok++;
      } catch (e) {
        if (!(e instanceof DecodeError)) throw e;
        failed++;
      }
    }
  } finally {
    Error.stackTraceLimit = limit;
  }
  return { ok, failed };
}

test('diep capture: total on 100k mutated pcaps (only items or a DecodeError)', () => {
  const { cb, sb } = ourMessages();
  const r = rng(11);
  const ext = 'permessage-deflate; server_no_context_takeover';
  const cw = concat([upgradeRequest('/ffa', ext), ...sb.slice(0, 2).flatMap((m) => writeMessage(r, m, { masked: true, pmd: new PmdWriter(true) }).bytes)]);
  const sw = concat([upgradeResponse(ext), ...cb.slice(0, 4).flatMap((m) => writeMessage(r, m, { masked: false, pmd: new PmdWriter(false) }).bytes)]);
  const pcap = tcpSessionPcap(r, [[cw], [sw]], { maxSeg: 300 });
  const { ok, failed } = fuzzReader(pcap, 12, (b) => new DiepCaptureReader().pcap(b));
  assert.ok(ok > 1000 && failed > 1000, `${ok} ok, ${failed} errors`);
});

test('diep capture: total on 100k mutated HAR files (only items or a DecodeError)', () => {
  const { cb, sb } = ourMessages();
  const har = new TextEncoder().encode(
    writeHarWebSockets([
      { url: 'ws://x/', messages: [sb[1]!, cb[3]!].map((d, i) => ({ type: i < 1 ? ('send' as const) : ('receive' as const), time: i, opcode: 2, data: d })) },
    ]),
  );
  const { ok, failed } = fuzzReader(har, 13, (b) => new DiepCaptureReader().har(b), '{}[]",:0aA=');
  assert.ok(ok > 1000 && failed > 1000, `${ok} ok, ${failed} errors`);
});

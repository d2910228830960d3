import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deflateRawSync } from 'node:zlib';
import fc from 'fast-check';
import { DecodeError, LimitError } from '../../src/core/errors.js';
import { fromHex, toHex } from '../../src/core/hex.js';
import { encodeFrame, parseDeflateExtension, parseHttpHead, WebSocketConnection, type WsEvent, type WsMessageEvent } from '../../src/core/websocket.js';
import { rng } from '../helpers/rng.js';
import { ascii, chop, concat, PmdWriter, upgradeRequest, upgradeResponse, writeMessage } from '../diep-capture/ws-helpers.js';

/** An open connection: side 0 client, side 1 server, heads already exchanged. */
function opened(ext?: string, limits = {}): WebSocketConnection {
  const c = new WebSocketConnection(limits);
  const ev = [...c.push(0, upgradeRequest('/ffa', ext)), ...c.push(1, upgradeResponse(ext))];
  assert.deepEqual(
    ev.map((e) => e.kind),
    ['handshake', 'handshake'],
  );
  return c;
}
const msgs = (ev: WsEvent[]) => ev.filter((e): e is WsMessageEvent => e.kind === 'message');
const errors = (ev: WsEvent[]) => ev.filter((e) => e.kind === 'error').map((e) => (e as { error: DecodeError }).error);

test('websocket: HTTP heads and the permessage-deflate parameters', () => {
  const h = parseHttpHead(upgradeRequest('/sandbox', 'permessage-deflate; client_max_window_bits'))!;
  assert.equal(h.method, 'GET');
  assert.equal(h.path, '/sandbox');
  assert.equal(h.headers['sec-websocket-version'], '13');
  assert.equal(parseHttpHead(ascii('GET / HTTP/1.1\r\nHost: x\r\n')), undefined, 'incomplete head');
  assert.throws(() => parseHttpHead(ascii('HELLO\r\n\r\n')), DecodeError);
  assert.throws(() => parseHttpHead(new Uint8Array(20000).fill(65), 16384), LimitError);
  const r = parseHttpHead(upgradeResponse())!;
  assert.equal(r.status, 101);
  assert.deepEqual(parseDeflateExtension('permessage-deflate; client_no_context_takeover; server_no_context_takeover'), {
    serverNoContextTakeover: true,
    clientNoContextTakeover: true,
  });
  assert.deepEqual(parseDeflateExtension('x-foo, permessage-deflate; server_max_window_bits="10"'), {
    serverNoContextTakeover: false,
    clientNoContextTakeover: false,
    serverMaxWindowBits: 10,
  });
  assert.equal(parseDeflateExtension('x-webkit-deflate-frame'), undefined);
});

test('websocket: the frames of RFC 6455 §5.7 (text, masked, fragmented, ping/pong, 16- and 64-bit lengths)', () => {
  const c = opened();
  // Server side: unmasked "Hello", fragmented "Hel" + "lo", an unmasked ping.
  let ev = c.push(1, fromHex('810548656c6c6f'));
  assert.equal(new TextDecoder().decode(msgs(ev)[0]!.data), 'Hello');
  assert.equal(msgs(ev)[0]!.opcode, 1);
  ev = c.push(1, fromHex('010348656c'));
  assert.equal(msgs(ev).length, 0);
  ev = c.push(1, fromHex('80026c6f'));
  assert.equal(new TextDecoder().decode(msgs(ev)[0]!.data), 'Hello');
  assert.equal(msgs(ev)[0]!.frames, 2);
  ev = c.push(1, fromHex('890548656c6c6f'));
  assert.equal(ev[0]!.kind, 'ping');
  // Client side: masked "Hello", masked pong.
  ev = c.push(0, fromHex('818537fa213d7f9f4d5158'));
  assert.equal(new TextDecoder().decode(msgs(ev)[0]!.data), 'Hello');
  assert.ok(msgs(ev)[0]!.fromClient);
  ev = c.push(0, fromHex('8a8537fa213d7f9f4d5158'));
  assert.equal(ev[0]!.kind, 'pong');
  // 256 bytes and 65536 bytes of binary.
  const b256 = new Uint8Array(256).map((_, i) => i);
  ev = c.push(1, concat([fromHex('827e0100'), b256]));
  assert.deepEqual(msgs(ev)[0]!.data, b256);
  const b64k = new Uint8Array(65536).map((_, i) => i * 7);
  ev = c.push(1, concat([fromHex('827f0000000000010000'), b64k]));
  assert.deepEqual(msgs(ev)[0]!.data, b64k);
  // Our encoder writes exactly those bytes.
  assert.equal(toHex(encodeFrame({ opcode: 1, payload: ascii('Hello'), mask: fromHex('37fa213d') })), '818537fa213d7f9f4d5158');
  assert.equal(toHex(encodeFrame({ opcode: 2, payload: b256 }).subarray(0, 4)), '827e0100');
  assert.equal(toHex(encodeFrame({ opcode: 2, payload: b64k }).subarray(0, 10)), '827f0000000000010000');
  // A close with status and reason.
  ev = c.push(1, encodeFrame({ opcode: 8, payload: concat([fromHex('03e8'), ascii('bye')]) }));
  assert.equal(ev[0]!.kind, 'close');
  assert.equal((ev[0] as { code?: number }).code, 1000);
  assert.equal((ev[0] as { reason?: string }).reason, 'bye');
});

test('websocket: the permessage-deflate examples of RFC 7692 §7.2.3 (with and without context takeover)', () => {
  const hello = (ev: WsEvent[]) => msgs(ev).map((m) => new TextDecoder().decode(m.data));
  // Context takeover (the default): the second "Hello" refers back to the first.
  let c = opened('permessage-deflate');
  assert.deepEqual(hello(c.push(1, fromHex('c107f248cdc9c90700'))), ['Hello']);
  assert.deepEqual(hello(c.push(1, fromHex('c105f200110000'))), ['Hello']);
  // No compression inside DEFLATE (BTYPE 00), two DEFLATE blocks in one message.
  assert.deepEqual(hello(c.push(1, fromHex('c10b0005' + '00faff48656c6c6f00'))), ['Hello']);
  assert.deepEqual(hello(c.push(1, fromHex('c10df248050000' + '00ffffcac9c90700'))), ['Hello']);
  // Fragmented compressed message: RSV1 on the first frame only.
  assert.deepEqual(hello(c.push(1, fromHex('4103f248cd'))), []);
  assert.deepEqual(hello(c.push(1, fromHex('8004c9c90700'))), ['Hello']);
  // server_no_context_takeover: the back-reference of the second example has no window to refer to.
  c = opened('permessage-deflate; server_no_context_takeover');
  assert.deepEqual(hello(c.push(1, fromHex('c107f248cdc9c90700'))), ['Hello']);
  const ev = c.push(1, fromHex('c105f200110000'));
  assert.equal(msgs(ev).length === 0 || hello(ev)[0] !== 'Hello', true);
  // RSV1 without the extension agreed is an error, and the next frame still reads.
  c = opened();
  const ev2 = c.push(1, fromHex('c107f248cdc9c90700810548656c6c6f'));
  assert.equal(errors(ev2)[0]!.path, 'frame.rsv1');
  assert.deepEqual(hello(ev2), ['Hello']);
});

test('websocket: bounds (frame and message caps skip and resume, an inflate bomb stops at the cap, a gap ends the side)', () => {
  const c = opened('permessage-deflate; server_no_context_takeover', { maxFramePayload: 1000, maxMessageSize: 1500, maxInflatedSize: 100000 });
  // A 5000-byte frame arrives in pieces; it is skipped, and the frame after it is read.
  const big = encodeFrame({ opcode: 2, payload: new Uint8Array(5000) });
  let ev: WsEvent[] = [];
  for (const p of chop(rng(1), concat([big, fromHex('810548656c6c6f')]), 700)) ev.push(...c.push(1, p));
  assert.ok(errors(ev).some((e) => e instanceof LimitError && e.limit === 'maxFramePayload'));
  assert.equal(msgs(ev).length, 1);
  // Two 900-byte fragments make an 1800-byte message: over maxMessageSize.
  ev = [
    ...c.push(1, encodeFrame({ opcode: 2, payload: new Uint8Array(900), fin: false })),
    ...c.push(1, encodeFrame({ opcode: 0, payload: new Uint8Array(900) })),
    ...c.push(1, fromHex('8100')),
  ];
  assert.ok(errors(ev).some((e) => e instanceof LimitError && e.limit === 'maxMessageSize'));
  assert.equal(msgs(ev).length, 1);
  // 10 MB of zeros deflate to ~10 KB... in frames of at most 1000 bytes that is over the frame cap; use 512 KiB (about 500 bytes compressed).
  const bomb = new Uint8Array(deflateRawSync(new Uint8Array(1 << 19), { finishFlush: 2 })).subarray(0, -4);
  assert.ok(bomb.length < 1000);
  ev = c.push(1, encodeFrame({ opcode: 2, payload: bomb, rsv1: true }));
  assert.ok(
    errors(ev).some((e) => e instanceof LimitError && e.limit === 'maxInflatedSize'),
    JSON.stringify(errors(ev).map(String)),
  );
  // No context takeover on this side: the next compressed message is fine.
  assert.equal(msgs(c.push(1, fromHex('c107f248cdc9c90700'))).length, 1);
  // A gap: fatal for that side, the other side goes on.
  ev = c.gap(1, 10);
  assert.equal((ev[0] as { fatal: boolean }).fatal, true);
  assert.equal(c.push(1, fromHex('810548656c6c6f')).length, 0);
  assert.equal(msgs(c.push(0, fromHex('818537fa213d7f9f4d5158'))).length, 1);
  // Buffered bytes stay under maxBuffered.
  const d = opened(undefined, { maxBuffered: 4096 });
  ev = d.push(1, fromHex('827e0fff'));
  ev.push(...d.push(1, new Uint8Array(3000)), ...d.push(1, new Uint8Array(3000)));
  assert.ok(errors(ev).some((e) => e instanceof LimitError && e.limit === 'maxBuffered'));
  assert.ok(d.buffered <= 4096);
});

test('websocket: our frames (random fragmentation, masking, compression with and without context takeover, control frames, any chunking) read back as the messages sent', () => {
  fc.assert(
    fc.property(
      fc.integer(),
      fc.array(fc.uint8Array({ maxLength: 3000 }), { minLength: 1, maxLength: 12 }),
      fc.constantFrom(
        '',
        'permessage-deflate',
        'permessage-deflate; client_no_context_takeover',
        'permessage-deflate; server_no_context_takeover',
        'permessage-deflate; client_no_context_takeover; server_no_context_takeover',
      ),
      (seed, payloads, ext) => {
        const r = rng(seed);
        const p = parseDeflateExtension(ext || undefined);
        const sides = [
          { masked: true, pmd: p ? new PmdWriter(!p.clientNoContextTakeover) : undefined, controlRate: 0.2 },
          { masked: false, pmd: p ? new PmdWriter(!p.serverNoContextTakeover) : undefined, controlRate: 0.2 },
        ];
        const wire: Uint8Array[][] = [[upgradeRequest('/ffa', ext || undefined)], [upgradeResponse(ext || undefined)]];
        const sent: Uint8Array[][] = [[], []];
        let controls = 0;
        for (const m of payloads) {
          const side = r() < 0.5 ? 0 : 1;
          // Messages that repeat earlier ones make the context matter.
          const msg = r() < 0.3 && sent[side]!.length > 0 ? sent[side]![sent[side]!.length - 1]! : m;
          sent[side]!.push(msg);
          const w = writeMessage(r, msg, sides[side]!);
          controls += w.controls;
          wire[side]!.push(...w.bytes);
        }
        const c = new WebSocketConnection();
        const got: Uint8Array[][] = [[], []];
        let ctl = 0;
        // The server's head first (the client waits for it), then both sides in random chunks, interleaved.
        const streams = [chop(r, concat(wire[0]!), 600), chop(r, concat(wire[1]!), 600)];
        const idx = [0, 0];
        while (idx[0]! < streams[0]!.length || idx[1]! < streams[1]!.length) {
          const side = idx[1]! >= streams[1]!.length ? 0 : idx[0]! >= streams[0]!.length ? 1 : r() < 0.5 ? 0 : 1;
          for (const e of c.push(side as 0 | 1, streams[side]![idx[side]!++]!)) {
            if (e.kind === 'error') throw new Error(`${e.error.message}`);
            if (e.kind === 'message') got[e.side]!.push(e.data);
            if (e.kind === 'ping' || e.kind === 'pong') ctl++;
          }
        }
        assert.deepEqual(got, sent);
        assert.equal(ctl, controls);
      },
    ),
    { numRuns: 300 },
  );
});

test('websocket: compressed messages inflate exactly, small and highly compressible ones through the shared scratch buffer, large ones without, in any order', () => {
  const r = rng(7);
  const sizes = [83, 200_000, 5, 3_000_000, 1_000, 0, 900_000, 64];
  for (const ext of ['permessage-deflate', 'permessage-deflate; server_no_context_takeover']) {
    const pmd = new PmdWriter(ext === 'permessage-deflate');
    const c = opened(ext);
    const sent: Uint8Array[] = [];
    const got: Uint8Array[] = [];
    for (const n of sizes) {
      // runs of one byte with a little noise: ratios from about 1 to several hundred
      const msg = new Uint8Array(n).fill(n & 0xff);
      for (let i = 0; i < n; i += 1 + Math.floor(r() * 5000)) msg[i] = Math.floor(r() * 256);
      sent.push(msg);
      for (const b of writeMessage(r, msg, { masked: false, pmd, compressRate: 1 }).bytes)
        for (const e of c.push(1, b)) {
          if (e.kind === 'error') throw new Error(e.error.message);
          if (e.kind === 'message') got.push(e.data);
        }
    }
    assert.equal(got.length, sent.length, ext);
    got.forEach((g, i) => assert.ok(Buffer.from(g).equals(Buffer.from(sent[i]!)), `${ext}: message ${i} (${sent[i]!.length} bytes)`));
  }
});

test('websocket: total and bounded on 100k random and mutated inputs', (t) => {
  const r = rng(7);
  const hello = fromHex('c107f248cdc9c90700' + 'c105f200110000' + '010348656c80026c6f' + '890548656c6c6f' + '827e0100');
  const base = concat([hello, new Uint8Array(256), fromHex('818537fa213d7f9f4d5158')]);
  let events = 0;
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0; // errors are checked, not printed: skip building their stacks
  t.after(() => (Error.stackTraceLimit = limit));
  const heads = [undefined, 'permessage-deflate', 'permessage-deflate; server_no_context_takeover'].map(
    (e) => [upgradeRequest('/', e), upgradeResponse(e)] as const,
  );
  for (let i = 0; i < 100000; i++) {
    const c = new WebSocketConnection({ maxFramePayload: 512, maxMessageSize: 1024, maxInflatedSize: 4096, maxBuffered: 2048 });
    const [req, res] = heads[i % 10 === 1 ? 1 : i % 10 === 2 ? 2 : 0]!;
    let b: Uint8Array;
    if (i % 4 === 0) b = Uint8Array.from({ length: Math.floor(r() * 64) }, () => Math.floor(r() * 256));
    else {
      b = base.slice(0, Math.floor(r() * base.length));
      for (let k = 1 + Math.floor(r() * 4); k > 0 && b.length > 0; k--) b[Math.floor(r() * b.length)] = Math.floor(r() * 256);
    }
    let ev: WsEvent[];
    if (i % 50 === 0)
      ev = c.push(1, b); // no heads at all: the bytes are read as a head
    else {
      c.push(0, req);
      c.push(1, res);
      ev = [];
      for (const p of chop(r, b, 40)) ev.push(...c.push((i & 1) as 0 | 1, p));
    }
    for (const e of ev) {
      events++;
      if (e.kind === 'error') assert.ok(e.error instanceof DecodeError);
      if (e.kind === 'message') assert.ok(e.data.length <= 4096);
    }
    assert.ok(c.buffered <= 2048);
  }
  assert.ok(events > 100000);
});

/**
 * What the two sides of a connection hold (objects and typed-array bytes reachable from
 * their fields): a deterministic measure of retained memory, whatever the representation.
 */
function retained(c: WebSocketConnection): { objects: number; bytes: number } {
  const seen = new Set<object>();
  let objects = 0;
  let bytes = 0;
  const walk = (v: unknown): void => {
    if (v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    objects++;
    if (ArrayBuffer.isView(v)) bytes += v.byteLength;
    else for (const x of Object.values(v)) walk(x);
  };
  walk((c as unknown as { sides: unknown }).sides);
  return { objects, bytes };
}

test('websocket: a fragmented message holds at most its bytes, however many (empty) fragments it comes in', () => {
  // 100,000 empty non-FIN continuation frames (the wire cost of each is 2 bytes) hold nothing.
  const c = opened(undefined, { maxMessageSize: 65536 });
  const empties = new Uint8Array(2 * 10000); // 00 00: FIN clear, continuation, length 0
  let ev = c.push(1, fromHex('0200'));
  for (let i = 0; i < 10; i++) ev.push(...c.push(1, empties));
  assert.deepEqual(ev, []);
  let r = retained(c);
  assert.ok(r.objects < 50, `objects held: ${r.objects}`);
  assert.ok(r.bytes < 3 * empties.length, `bytes held: ${r.bytes}`);
  ev = c.push(1, concat([encodeFrame({ opcode: 0, payload: ascii('ok') })]));
  assert.equal(msgs(ev).length, 1);
  assert.equal(new TextDecoder().decode(msgs(ev)[0]!.data), 'ok');
  assert.equal(msgs(ev)[0]!.frames, 100002);

  // 60,000 one-byte fragments under the 65,536-byte cap: one buffer, at most the cap.
  const d = opened(undefined, { maxMessageSize: 65536 });
  const ones = new Uint8Array(3 * 10000);
  for (let i = 0; i < 10000; i++) ones.set([0x00, 0x01, i & 0xff], 3 * i);
  ev = d.push(1, fromHex('020107'));
  for (let i = 0; i < 6; i++) ev.push(...d.push(1, ones));
  assert.deepEqual(ev, []);
  r = retained(d);
  assert.ok(r.objects < 50, `objects held: ${r.objects}`);
  assert.ok(r.bytes <= 65536 + 4 * ones.length, `bytes held: ${r.bytes}`);
  ev = d.push(1, fromHex('800109'));
  const m = msgs(ev)[0]!;
  assert.equal(m.data.length, 60002);
  assert.equal(m.data[0], 7);
  assert.equal(m.data[1 + 3 * 10000 + 5], 5);
  assert.equal(m.data[60001], 9);
  assert.equal(m.data.buffer.byteLength, 60002, 'the message owns exactly its bytes');
  // The byte cap still counts bytes: 70,000 one-byte fragments are over it, reported once.
  ev = d.push(1, fromHex('020107'));
  for (let i = 0; i < 7; i++) ev.push(...d.push(1, ones));
  ev.push(...d.push(1, fromHex('8000')));
  assert.deepEqual(
    errors(ev).map((e) => (e as LimitError).limit),
    ['maxMessageSize'],
  );
  assert.equal(msgs(ev).length, 0);
  assert.ok(retained(d).objects < 50);
});

test('websocket: HTTP heads are searched once, not again on every push (either side)', () => {
  // The server's head stays incomplete (16,000 bytes) while the client pushes 20,000 one-byte segments.
  const c = new WebSocketConnection();
  const req = upgradeRequest('/ffa');
  c.push(0, req);
  const pending = ascii(`HTTP/1.1 101 Switching Protocols\r\nX: ${'a'.repeat(16000 - 37)}`);
  c.push(1, pending);
  const frame = encodeFrame({ opcode: 2, payload: new Uint8Array(19994), mask: fromHex('01020304') });
  for (let i = 0; i < frame.length; i++) assert.deepEqual(c.push(0, frame.subarray(i, i + 1)), []);
  assert.ok(c.headBytesScanned < 2 * (req.length + pending.length), `bytes searched: ${c.headBytesScanned}`);
  // The server's head completes: the client's waiting frame is read then.
  const ev = c.push(1, ascii('\r\n\r\n'));
  assert.deepEqual(
    ev.map((e) => e.kind),
    ['handshake', 'message'],
  );
  assert.equal(msgs(ev)[0]!.data.length, 19994);
  assert.ok(c.headBytesScanned < 2 * (req.length + pending.length + 4), `bytes searched: ${c.headBytesScanned}`);

  // A 16,323-byte head arriving a byte at a time (including the blank line split across pushes).
  const d = new WebSocketConnection();
  const h = ascii(`GET / HTTP/1.1\r\nX: ${'a'.repeat(16300)}\r\n\r\n`);
  const got: WsEvent[] = [];
  for (let i = 0; i < h.length; i++) got.push(...d.push(0, h.subarray(i, i + 1)));
  assert.equal(got.length, 1);
  assert.equal(got[0]!.kind, 'handshake');
  assert.equal((got[0] as { head: { headers: Record<string, string> } }).head.headers.x!.length, 16300);
  assert.ok(d.headBytesScanned <= 5 * h.length, `bytes searched: ${d.headBytesScanned}`);
});

test('websocket: a compressed message cut short by a new data frame loses the shared window (an error, not wrong data)', () => {
  const r = rng(7);
  const C = new Uint8Array(2000).map(() => Math.floor(r() * 256));
  const A = new Uint8Array(600).map(() => Math.floor(r() * 256));
  const B = A.slice(); // the sender codes B as a back-reference into A
  // 'interrupted': A's first fragment, then B starts a new message (A is abandoned).
  // 'rsv2': A comes as one frame with RSV2 set as well as RSV1 (dropped as unreadable).
  for (const how of ['interrupted', 'rsv2'] as const) {
    const pmd = new PmdWriter(true);
    const c = opened('permessage-deflate');
    const zc = pmd.compress(C);
    const za = pmd.compress(A);
    const zb = pmd.compress(B);
    const a = encodeFrame({ opcode: 2, payload: za, rsv1: true, fin: how === 'rsv2' });
    if (how === 'rsv2') a[0]! |= 0x20;
    const ev = [
      ...c.push(1, encodeFrame({ opcode: 2, payload: zc, rsv1: true })),
      ...c.push(1, a),
      ...c.push(1, encodeFrame({ opcode: 2, payload: zb, rsv1: true })),
    ];
    assert.deepEqual(
      msgs(ev).map((m) => Buffer.from(m.data).equals(m.offset === 0 ? C : B)),
      [true],
      `${how}: only C is delivered (B cannot be inflated without A)`,
    );
    assert.deepEqual(
      errors(ev).map((e) => e.path),
      [how === 'rsv2' ? 'frame.rsv' : 'frame.opcode', 'message.deflate'],
      how,
    );
  }
});

test('websocket: header names are own keys only (constructor, __proto__, toString)', () => {
  const h = parseHttpHead(ascii('HTTP/1.1 101 Switching Protocols\r\nConstructor: x\r\n__proto__: y\r\ntoString: z\r\nConstructor: w\r\n\r\n'))!;
  assert.equal(h.headers.constructor, 'x, w');
  assert.equal(Object.getOwnPropertyDescriptor(h.headers, '__proto__')?.value, 'y');
  assert.equal(h.headers.tostring, 'z');
  assert.deepEqual(Object.keys(h.headers), ['constructor', '__proto__', 'tostring']);
  assert.equal(h.headers.hasownproperty, undefined);
  assert.equal(h.headers.valueOf, undefined);
  // Close reasons keep a leading U+FEFF (it is text, not a byte-order mark).
  const c = opened();
  const ev = c.push(1, encodeFrame({ opcode: 8, payload: fromHex('03e8efbbbf6279') }));
  assert.equal((ev[0] as { reason?: string }).reason, '\ufeffby');
});

test('websocket: after a refused upgrade (an answer other than 101) the client bytes that follow are HTTP, not frames', () => {
  for (const early of [false, true]) {
    const c = new WebSocketConnection();
    const next = ascii(`GET /other HTTP/1.1\r\nHost: x\r\nUser-Agent: ${'M'.repeat(300)}\r\n\r\n`);
    const ev = [...c.push(0, early ? concat([upgradeRequest('/ffa'), next]) : upgradeRequest('/ffa'))];
    ev.push(...c.push(1, ascii('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n')));
    if (!early) ev.push(...c.push(0, next), ...c.push(0, next));
    // The server's answer and why the side ended; nothing read as frames from the client.
    assert.deepEqual(
      ev.map((e) => [e.kind, e.side]),
      [
        ['handshake', 0],
        ['handshake', 1],
        ['error', 1],
      ],
      `early ${early}`,
    );
    assert.equal(errors(ev)[0]!.path, 'http.status');
    assert.equal(c.buffered, 0);
    assert.equal(c.open, false);
  }
});

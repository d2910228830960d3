import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { fromHex, toHex } from '../../src/core/hex.js';
import {
  clientFrame,
  encryptClientStream,
  encryptServerStream,
  HeaderCipher,
  sessionKeyFromHex,
  sessionKeyToDbHex,
  WorldCrypt,
} from '../../src/protocols/wow/cipher.js';

/** K[i] = i + 1. */
const KEY = Uint8Array.from({ length: 40 }, (_, i) => i + 1);

test('cipher: server headers, vectors worked out by hand', () => {
  // SMSG_AUTH_RESPONSE header 00 0c ee 01 with K[0..3] = 01 02 03 04, previous byte 0:
  //   (00^01)+00 = 01; (0c^02)+01 = 0f; (ee^03)+0f = fc; (01^04)+fc = 101 -> 01
  // then SMSG_PONG 00 06 dd 01 with K[4..7] = 05 06 07 08, previous byte 01:
  //   (00^05)+01 = 06; (06^06)+06 = 06; (dd^07)+06 = e0; (01^08)+e0 = e9
  const c = new WorldCrypt(KEY);
  const a = fromHex('000cee01');
  c.server.encrypt(a);
  assert.equal(toHex(a), '010ffc01');
  const b = fromHex('0006dd01');
  c.server.encrypt(b);
  assert.equal(toHex(b), '0606e0e9');
  assert.equal(c.server.index, 8);
  assert.equal(c.server.last, 0xe9);
  // The client direction is untouched by the server's state.
  assert.equal(c.client.index, 0);
});

test('cipher: client headers, a vector worked out by hand', () => {
  // CMSG_CHAR_ENUM 00 04 37 00 00 00 with K[0..5] = 01..06:
  //   01; (04^02)+01 = 07; (37^03)+07 = 3b; (00^04)+3b = 3f; (00^05)+3f = 44; (00^06)+44 = 4a
  const c = new WorldCrypt(KEY);
  const f = clientFrame(0x37, new Uint8Array(0));
  assert.equal(toHex(f), '000437000000');
  c.encryptClientFrame(f);
  assert.equal(toHex(f), '01073b3f444a');
  const d = f.slice();
  new WorldCrypt(KEY).decryptClientHeader(d);
  assert.equal(toHex(d), '000437000000');
});

test('cipher: the key index wraps after 40 bytes (ten server headers, or 20 client headers over 3 turns)', () => {
  const s = new HeaderCipher(KEY);
  for (let n = 0; n < 10; n++) s.encrypt(new Uint8Array(4));
  assert.equal(s.index, 0);
  const c = new HeaderCipher(KEY);
  for (let n = 0; n < 20; n++) c.encrypt(new Uint8Array(6));
  assert.equal(c.index, 0);
  // Byte 40 uses K[0] again: a zero byte right after a zero previous byte encrypts to K[0] + last.
  const last = s.last;
  const z = new Uint8Array(1);
  s.encrypt(z);
  assert.equal(z[0], (KEY[0]! + last) & 0xff);
});

test('cipher: decrypt undoes encrypt for any key and any header sequence, both directions', () => {
  fc.assert(
    fc.property(fc.uint8Array({ minLength: 40, maxLength: 40 }), fc.array(fc.uint8Array({ minLength: 6, maxLength: 6 }), { maxLength: 30 }), (key, headers) => {
      const enc = new WorldCrypt(key);
      const dec = new WorldCrypt(key);
      for (const h of headers) {
        const s = h.slice(0, 4);
        enc.server.encrypt(s);
        dec.decryptServerHeader(s);
        assert.deepEqual(s, h.subarray(0, 4));
        const c = h.slice();
        enc.encryptClientFrame(c);
        dec.decryptClientHeader(c);
        assert.deepEqual(c, h);
      }
    }),
    { numRuns: 300 },
  );
});

test('cipher: encrypted streams keep the first frame plain and never touch payloads', () => {
  const frames = [fromHex('0006ec0101020304'), fromHex('000cee010c000000000000000000'), fromHex('0006dd01aabbccdd')];
  const wire = encryptServerStream(frames, KEY);
  assert.equal(toHex(wire[0]!), '0006ec0101020304');
  assert.equal(toHex(wire[1]!), '010ffc01' + '0c000000000000000000');
  assert.equal(toHex(wire[2]!), '0606e0e9' + 'aabbccdd');
  assert.equal(toHex(frames[1]!), '000cee010c000000000000000000', 'input untouched');
  const cw = encryptClientStream([clientFrame(0x1ed, Uint8Array.of(9)), clientFrame(0x37, new Uint8Array(0))], KEY);
  assert.equal(toHex(cw[0]!), '0005ed01000009');
  assert.equal(toHex(cw[1]!), '01073b3f444a');
});

test('cipher: session keys from the MaNGOS account.sessionkey hex (big-endian number) and as raw bytes', () => {
  const db = Array.from({ length: 39 }, (_, i) => (39 - i).toString(16).padStart(2, '0')).join(''); // 27 26 .. 01
  // 39 bytes given: the number's leading zero byte is padded back.
  const k = sessionKeyFromHex(db);
  assert.equal(k.length, 40);
  assert.equal(k[0], 0x01);
  assert.equal(k[38], 0x27);
  assert.equal(k[39], 0x00);
  assert.equal(sessionKeyToDbHex(k), '00' + db.toUpperCase());
  assert.deepEqual(sessionKeyFromHex(toHex(KEY), 'bytes'), KEY);
  assert.throws(() => sessionKeyFromHex('xyz'));
  assert.throws(() => sessionKeyFromHex('00'.repeat(41)));
  assert.throws(() => sessionKeyFromHex('00', 'bytes'));
});

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError } from '../../src/core/errors.js';
import { decodeBase64, readHarWebSockets, writeHarWebSockets } from '../../src/core/har.js';

const enc = (s: string) => new TextEncoder().encode(s);
const b64err = (text: string): DecodeError | undefined => {
  try {
    decodeBase64(text);
    return undefined;
  } catch (e) {
    assert.ok(e instanceof DecodeError, String(e));
    return e;
  }
};

test('har: base64 is strict (padding only to a multiple of 4, zero leftover bits, one alphabet); unpadded canonical text is read', () => {
  assert.deepEqual(decodeBase64('QUJD'), enc('ABC'));
  assert.deepEqual(decodeBase64('QQ=='), enc('A'));
  assert.deepEqual(decodeBase64('QQ'), enc('A'));
  assert.deepEqual(decodeBase64('QUI='), enc('AB'));
  assert.deepEqual(decodeBase64('QUI'), enc('AB'));
  assert.deepEqual(decodeBase64(''), new Uint8Array(0));
  assert.deepEqual(decodeBase64('+/+/'), new Uint8Array([0xfb, 0xff, 0xbf]));
  assert.deepEqual(decodeBase64('-_-_'), new Uint8Array([0xfb, 0xff, 0xbf]));
  // Padding where none belongs, too much or too little of it.
  for (const t of ['QUJD=', 'QUJD==', 'QR=', 'QUI==', 'QQ=', '=', '==', 'Q===']) assert.ok(b64err(t), t);
  // Whole extra quanta of padding: still a multiple of 4, but not the padding of the last quantum.
  for (const t of ['QUJD====', 'QQ======', 'QUI=====', '====']) assert.equal(b64err(t)?.path, 'base64', t);
  // Leftover bits that are not zero: 'QR' and 'QZ==' would read as 'A' ('QQ' is the one spelling).
  assert.equal(b64err('QR')?.offset, 1);
  assert.equal(b64err('QZ==')?.offset, 1);
  assert.equal(b64err('QUJ')?.offset, 2);
  // '=' inside, characters outside both alphabets, two alphabets mixed.
  assert.equal(b64err('QQ==QUJD')?.offset, 2);
  assert.equal(b64err('QU*D')?.offset, 2);
  assert.equal(b64err('+/-_')?.offset, 2);
  // Every byte string written by our writer (padded, standard alphabet) reads back.
  for (let n = 0; n < 70; n++) {
    const data = new Uint8Array(n).map((_, i) => (i * 151 + n) & 0xff);
    const har = writeHarWebSockets([{ url: 'ws://x/', messages: [{ type: 'receive', time: 1, opcode: 2, data }] }]);
    assert.deepEqual(readHarWebSockets(enc(har))[0]!.messages[0]!.data, data);
    assert.deepEqual(decodeBase64(Buffer.from(data).toString('base64url')), data, 'unpadded URL alphabet');
  }
});

test('har: the fixture HAR still reads (its base64 is canonical)', async () => {
  const { readFileSync } = await import('node:fs');
  const bytes = new Uint8Array(readFileSync(new URL('../fixtures/diep/pcap/sandbox-shared-compressor.har', import.meta.url)));
  const ws = readHarWebSockets(bytes);
  assert.equal(ws.length, 1);
  assert.ok(ws[0]!.messages.length > 100);
});

test('har: a JSON syntax error names its byte offset in the input (not UTF-16 units, not 0)', () => {
  const at = (text: string | Uint8Array): DecodeError => {
    try {
      readHarWebSockets(typeof text === 'string' ? enc(text) : text);
    } catch (e) {
      assert.ok(e instanceof DecodeError);
      return e;
    }
    assert.fail('no error');
  };
  // Node 20's message for these has no position.
  assert.equal(at('{"log": {"entries": [}}').offset, 21);
  assert.equal(at('{"log": {"entries": [').offset, 21, 'unexpected end: the byte length');
  assert.equal(at('{"log": {"entries": [').offset, 21);
  // Five 2-byte characters before the error: character 32, byte 37.
  assert.equal(at('{"log":{"entries":[{"x":"ééééé"}x]}}').offset, 37);
  assert.equal(at('{"log": 1 2}').offset, 10);
  // 4-byte characters are 2 UTF-16 units; a BOM (dropped before parsing) is 3 bytes.
  assert.equal(at('{"a":"😀😀",,}').offset, 16);
  assert.equal(at(new Uint8Array([0xef, 0xbb, 0xbf, ...enc('{"a":1,}')])).offset, 10);
  // Invalid UTF-8 (read as U+FFFD) before the error: bytes, not decoded characters.
  assert.equal(at(new Uint8Array([...enc('{"a":"'), 0xe0, 0x80, 0xff, 0xf0, 0x9f, 0x98, ...enc('"x}')])).offset, 13);
  // Other syntax errors land where JSON.parse stops.
  for (const [text, offset] of [
    ['', 0],
    ['   ', 3],
    ['{"a":tru}', 8],
    ['{"a":-}', 6],
    ['{"a":01}', 6],
    ['{"a":1.}', 7],
    ['{"a":1e}', 7],
    ['{"a":"\\q"}', 7],
    ['{"a":"\\u12G4"}', 10],
    ['{"a":"x\ny"}', 7],
    ['{a:1}', 1],
    ['{"a" 1}', 5],
    ['[1,]', 3],
    ['{"log":{}} x', 11],
    ['[[[[[[', 6],
  ] as const) {
    const e = at(text);
    assert.equal(e.offset, offset, `${JSON.stringify(text)}: ${e.message}`);
    assert.match(e.message, new RegExp(`^at byte ${offset} in har:`));
  }
});

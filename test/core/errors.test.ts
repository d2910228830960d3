/** core/errors.ts: the helpers that move paths onto errors and turn an encoder's refusal into a mirror's DecodeError. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodeError, EncodeError, atPath, refusalAsDecodeError, rethrowAt } from '../../src/core/errors.js';

test('refusalAsDecodeError: the path kept, byte 0, "expected X" as X, any other reason as what the encoder takes', () => {
  const a = refusalAsDecodeError(new EncodeError('updates', 'expected an array, got null'));
  assert.ok(a instanceof DecodeError);
  assert.equal(a.offset, 0);
  assert.equal(a.path, 'updates');
  assert.equal(a.expected, 'an array, got null');
  const b = refusalAsDecodeError(new EncodeError('blocks[0].guid', 'out of range'));
  assert.ok(b instanceof DecodeError);
  assert.equal(b.path, 'blocks[0].guid');
  assert.equal(b.expected, 'what the encoder takes (out of range)');
  // anything else goes through as it is
  const other = new TypeError('x');
  assert.equal(refusalAsDecodeError(other), other);
  const dec = new DecodeError(3, 'p', 'q');
  assert.equal(refusalAsDecodeError(dec), dec);
});

test('atPath puts a segment in front of an EncodeError path; rethrowAt of a DecodeError', () => {
  const e = atPath(new EncodeError('[2].x', 'bad'), 'items') as EncodeError;
  assert.equal(e.path, 'items[2].x');
  assert.equal((atPath(new EncodeError('x', 'bad'), 'items') as EncodeError).path, 'items.x');
  assert.equal((atPath(new EncodeError('', 'bad'), 'items') as EncodeError).path, 'items');
  const d = rethrowAt(new DecodeError(5, 'f', 'g'), 'outer');
  assert.equal(d.offset, 5);
  assert.match(d.path, /^outer/);
  const w = rethrowAt(new RangeError('boom'), 'seg', 9);
  assert.equal(w.offset, 9);
  assert.match(w.message, /internal error: boom/);
});

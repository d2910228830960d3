import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isClientOpcode, isServerOpcode, NUM_OPCODES, OPCODE_NAMES, opcodeByName, opcodeName } from '../../src/protocols/wow/tables/opcodes.js';

test('opcodes: 828 names (0x000-0x33B), unique, with a direction prefix', () => {
  assert.equal(OPCODE_NAMES.length, NUM_OPCODES);
  assert.equal(NUM_OPCODES, 0x33c);
  assert.equal(new Set(OPCODE_NAMES).size, OPCODE_NAMES.length);
  // One name has no direction in the source: 0x110 OBSOLETE_DROP_ITEM.
  for (const n of OPCODE_NAMES) assert.match(n, /^((CMSG|SMSG|MSG|UMSG)_[A-Z0-9_]+|OBSOLETE_DROP_ITEM)$/);
  assert.equal(opcodeName(0x110), 'OBSOLETE_DROP_ITEM');
  const server = OPCODE_NAMES.filter((_, i) => isServerOpcode(i)).length;
  const client = OPCODE_NAMES.filter((_, i) => isClientOpcode(i)).length;
  assert.ok(server > 300 && client > 300, `${server} server, ${client} client`);
});

test('opcodes: the values the reference and the handshake rely on', () => {
  // wow-reference.md §1.2 and the related movement opcodes it lists
  assert.equal(opcodeName(0x0a9), 'SMSG_UPDATE_OBJECT');
  assert.equal(opcodeName(0x0aa), 'SMSG_DESTROY_OBJECT');
  assert.equal(opcodeName(0x1f6), 'SMSG_COMPRESSED_UPDATE_OBJECT');
  assert.equal(opcodeName(0x0dd), 'SMSG_MONSTER_MOVE');
  assert.equal(opcodeName(0x2fb), 'SMSG_COMPRESSED_MOVES');
  // the world handshake
  assert.equal(opcodeByName('SMSG_AUTH_CHALLENGE'), 0x1ec);
  assert.equal(opcodeByName('CMSG_AUTH_SESSION'), 0x1ed);
  assert.equal(opcodeByName('SMSG_AUTH_RESPONSE'), 0x1ee);
  assert.equal(opcodeByName('CMSG_CHAR_ENUM'), 0x037);
  assert.equal(opcodeByName('CMSG_PLAYER_LOGIN'), 0x03d);
  assert.equal(opcodeByName('MSG_MOVE_HEARTBEAT'), 0x0ee);
  assert.equal(opcodeName(0x33c), 'UNKNOWN_0x033c');
  assert.equal(opcodeByName('NOPE'), undefined);
  assert.equal(isServerOpcode(0x0a9), true);
  assert.equal(isClientOpcode(0x0a9), false);
  assert.equal(isServerOpcode(0x0ee) && isClientOpcode(0x0ee), true, 'MSG_ goes both ways');
});

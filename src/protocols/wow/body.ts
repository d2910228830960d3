/** The update body (§2): `u32 blockCount`, `u8 hasTransport`, then the blocks (§2.4). */
import { ByteReader } from '../../core/reader.js';
import { ByteWriter } from '../../core/writer.js';
import { DecodeError, EncodeError, atPath, rethrowAt } from '../../core/errors.js';
import { excerpt } from '../../core/json.js';
import { ReadContext, type WowDecodeOptions, type WowEncodeOptions } from './context.js';
import { checkGuid, readPackedGuid, writePackedGuid } from './guid.js';
import { resolveWowLimits, type WowLimits } from './limits.js';
import { checkU, readMovement, writeMovement } from './movement.js';
import { readValues, writeValues } from './values.js';
import type { GuidListBlock, MovementGuidWidth, UpdateBlock, UpdateBody } from './types.js';

// ---------------------------------------------------------------------------
// reading

function readGuidList(r: ByteReader, ctx: ReadContext, updateType: 4 | 5, block: number): GuidListBlock {
  const at = r.pos;
  if (at + 4 > r.end) r.need(4, 'count');
  const n = r.view.getUint32(at, true); // no span of its own: the JSON has no count (the `guids` span covers it)
  r.pos = at + 4;
  r.count(n, 1, ctx.limits.maxArrayLength, 'maxArrayLength', 'guids');
  const guids: bigint[] = new Array<bigint>(n);
  const spans = ctx.spans;
  for (let i = 0; i < n; i++) {
    const s = r.pos;
    guids[i] = spans === undefined ? readPackedGuid(r, ctx, 'guids', undefined) : readPackedGuid(r, ctx, `guids[${i}]`);
    if (ctx.ranges !== undefined) ctx.ranges.push({ guid: guids[i]!, start: s, end: r.pos, block });
  }
  if (spans !== undefined) spans.add('guids', at, r.pos, 'array');
  return { updateType, guids };
}

function readBlock(r: ByteReader, ctx: ReadContext, block: number): UpdateBlock {
  const start = r.pos;
  const t = r.u8('updateType');
  let b: UpdateBlock;
  switch (t) {
    case 0: {
      const guid = readPackedGuid(r, ctx, 'guid');
      const values = readValues(r, ctx, ctx.spans === undefined ? undefined : ctx.typeFor(guid));
      b = { updateType: 0, guid, values };
      break;
    }
    case 1: {
      const guid = ctx.moveGuid === 'packed' ? readPackedGuid(r, ctx, 'guid') : r.u64le('guid');
      b = { updateType: 1, guid, movement: readMovement(r, ctx) };
      break;
    }
    case 2:
    case 3: {
      const guid = readPackedGuid(r, ctx, 'guid');
      const objectTypeId = r.u8('objectTypeId');
      ctx.localTypes?.set(guid, objectTypeId);
      const movement = readMovement(r, ctx);
      const values = readValues(r, ctx, objectTypeId);
      b = { updateType: t, guid, objectTypeId, movement, values };
      break;
    }
    case 4:
    case 5:
      return readGuidList(r, ctx, t, block);
    default:
      throw new DecodeError(start, 'updateType', 'update type 0 to 5', String(t));
  }
  if (ctx.ranges !== undefined) ctx.ranges.push({ guid: b.guid, start, end: r.pos, block });
  return b;
}

/** Read a body from `r` up to `r.end` (no trailing bytes allowed). */
export function readBody(r: ByteReader, ctx: ReadContext): UpdateBody {
  const spans = ctx.spans;
  const count = r.u32le('blockCount');
  r.count(count, 3, ctx.limits.wowMaxBlocks, 'wowMaxBlocks', 'blocks');
  const hasTransport = r.u8('hasTransport');
  const blocks: UpdateBlock[] = new Array<UpdateBlock>(count);
  const first = r.pos;
  for (let i = 0; i < count; i++) {
    const start = r.pos;
    if (spans !== undefined) spans.push(`blocks[${i}]`);
    try {
      blocks[i] = readBlock(r, ctx, i);
    } catch (e) {
      if (spans !== undefined) spans.pop();
      throw rethrowAt(e, `blocks[${i}]`, r.pos);
    }
    if (spans !== undefined) {
      spans.pop();
      spans.add(`blocks[${i}]`, start, r.pos, 'struct');
    }
  }
  r.expectEnd('blocks');
  if (spans !== undefined) spans.add('blocks', first, r.pos, 'array');
  const body: UpdateBody = { hasTransport, blocks };
  if (ctx.nonCanonical) body.nonCanonical = true;
  decoded.add(body);
  return body;
}

/**
 * The bodies the decoder made (see fromDecoder): a store applies them without checking them again. Checking
 * (`checkBody`: encoding into a scratch writer) costs about a quarter more on decode + apply; bodies from bytes
 * were checked as they were read.
 */
const decoded = new WeakSet<UpdateBody>();

/** Whether `body` is one `decodeBody` / `decodePacket` returned (a caller may still have changed it since). */
export function fromDecoder(body: UpdateBody): boolean {
  return decoded.has(body);
}

/** Decode an uncompressed update body (the payload of SMSG_UPDATE_OBJECT). */
export function decodeBody(bytes: Uint8Array, opts?: WowDecodeOptions): UpdateBody {
  const ctx = new ReadContext(opts);
  const r = new ByteReader(bytes, 0, bytes.length, ctx.spans);
  try {
    return readBody(r, ctx);
  } catch (e) {
    throw rethrowAt(e, '', r.pos);
  }
}

// ---------------------------------------------------------------------------
// writing

function writeBlock(w: ByteWriter, b: UpdateBlock, moveGuid: MovementGuidWidth, limits: Readonly<WowLimits>): void {
  if (b === null || typeof b !== 'object') throw new EncodeError('', `expected a block, got ${excerpt(b)}`);
  const t = b.updateType;
  switch (t) {
    case 0:
      w.u8(0);
      writePackedGuid(w, b.guid, 'guid');
      writeValues(w, b.values);
      return;
    case 1:
      w.u8(1);
      if (moveGuid === 'packed') writePackedGuid(w, b.guid, 'guid');
      else w.u64le(checkGuid(b.guid, 'guid'));
      writeMovement(w, b.movement, limits.wowMaxSplinePoints);
      return;
    case 2:
    case 3:
      w.u8(t);
      writePackedGuid(w, b.guid, 'guid');
      w.u8(checkU(b.objectTypeId, 0xff, 'objectTypeId'));
      writeMovement(w, b.movement, limits.wowMaxSplinePoints);
      writeValues(w, b.values);
      return;
    case 4:
    case 5: {
      const guids = b.guids;
      if (!Array.isArray(guids)) throw new EncodeError('guids', `expected an array of guids, got ${excerpt(guids)}`);
      if (guids.length > limits.maxArrayLength)
        throw new EncodeError('guids', `${guids.length} guids, past the decoder's limit maxArrayLength (${limits.maxArrayLength})`);
      w.u8(t).u32le(guids.length);
      for (let i = 0; i < guids.length; i++) writePackedGuid(w, guids[i]!, `guids[${i}]`);
      return;
    }
    default:
      throw new EncodeError('updateType', `expected 0 to 5, got ${excerpt(t)}`);
  }
}

/** Append one block to `w` (used by the producer to measure and split). */
export function writeUpdateBlock(w: ByteWriter, b: UpdateBlock, opts?: WowEncodeOptions): void {
  writeBlock(w, b, opts?.movementBlockGuid ?? 'u64', resolveWowLimits(opts?.limits));
}

/** Encode an uncompressed update body. */
export function encodeBody(body: UpdateBody, opts?: WowEncodeOptions): Uint8Array {
  const w = new ByteWriter(256);
  writeBodyTo(w, body, opts);
  return w.finish();
}

/**
 * Check a body object as the encoder takes it (an EncodeError naming the first thing it would refuse): what a
 * store that applies caller-made objects checks first (see ObjectStore.applyBody). It encodes the body into a
 * scratch writer, kept between calls, and forgets the bytes.
 */
export function checkBody(body: UpdateBody, limits: Readonly<WowLimits>): void {
  const w = (scratch ??= new ByteWriter(1024));
  try {
    writeBodyTo(w, body, { limits });
  } finally {
    // (a writer grown past a megabyte by one large body is not kept)
    if (w.length > 1 << 20) scratch = undefined;
    else w.reset();
  }
}

let scratch: ByteWriter | undefined;

function writeBodyTo(w: ByteWriter, body: UpdateBody, opts?: WowEncodeOptions): void {
  const moveGuid = opts?.movementBlockGuid ?? 'u64';
  const limits = resolveWowLimits(opts?.limits);
  if (body === null || typeof body !== 'object') throw new EncodeError('', `expected a body, got ${excerpt(body)}`);
  const blocks = body.blocks;
  if (!Array.isArray(blocks)) throw new EncodeError('blocks', `expected an array, got ${excerpt(blocks)}`);
  if (blocks.length > limits.wowMaxBlocks)
    throw new EncodeError('blocks', `${blocks.length} blocks, past the decoder's limit wowMaxBlocks (${limits.wowMaxBlocks})`);
  w.u32le(blocks.length);
  w.u8(checkU(body.hasTransport, 0xff, 'hasTransport'));
  for (let i = 0; i < blocks.length; i++) {
    try {
      writeBlock(w, blocks[i]!, moveGuid, limits);
    } catch (e) {
      throw atPath(e, `blocks[${i}]`);
    }
  }
}

/**
 * Leaves of a family's JSON records that come from no bytes of their own, by path pattern,
 * with the reason. The span-coverage tests (node and Chromium) count every other leaf.
 */
import type { AllowedGap } from './span-coverage.js';

export const ALLOWED_GAPS: Record<string, AllowedGap[]> = {
  scrapmechanic: [],
  teeworlds: [],
  wow: [
    { pattern: /^compression$/, reason: 'null for SMSG_UPDATE_OBJECT: "not compressed" follows from frame.opcode' },
    { pattern: /^frame\.opcodeName$/, reason: 'derived: the name of frame.opcode' },
    { pattern: /^frame\.payloadLength$/, reason: 'derived: frame.size - 2' },
    { pattern: /^compression\.zlibLength$/, reason: 'derived: the length of compression.zlib' },
    { pattern: /(^|\.)length$/, reason: 'derived: the length of the body buffer (frame size, or the inflated size)' },
    { pattern: /\.updateTypeName$/, reason: 'derived: the name of updateType' },
    { pattern: /\.objectTypeName$/, reason: 'derived: the name of objectTypeId' },
    { pattern: /\.values\.fields\[\d+\]\.(index|field|offset|type)$/, reason: "derived: the slot's index (from the mask) and its field-table entry" },
    { pattern: /(updateFlagNames|\.flagNames)\[\d+\]$/, reason: 'derived: the named breakdown of the flag word next to it' },
    { pattern: /^problems\[\d+\]$/, reason: 'annotation: what the object store reported' },
    { pattern: /(^|\.)nonCanonical$/, reason: 'annotation: the decoder saw a non-canonical packed guid' },
  ],
  diep: [
    { pattern: /^issues\[\d+\]$/, reason: 'store issues: what the client mirror noticed over the stream, not bytes of this message' },
    { pattern: /^issuesNotListed$/, reason: 'count of store issues past diepMaxIssuesKept (derived)' },
  ],
  replication: [
    { pattern: /^(parts\[\d+\]\.)?baseTick$/, reason: 'tick - baseAgo (null for a full state): derived from two header fields' },
    { pattern: /^(parts\[\d+\]\.)?ignored$/, reason: "the client's verdict on an old or unbaselined packet, not a wire field" },
  ],
};

/**
 * Families whose allowed gaps depend on each record (items a Teeworlds delta carries over
 * unchanged from its base; a Scrap Mechanic Update's controller type from an earlier
 * Create): their 100 % count is made by their own node test, which knows the decoder's
 * view; the Chromium test checks that the page agrees with the data, message by message.
 */
export const RECORD_DEPENDENT_GAPS: Record<string, string> = {
  teeworlds: 'test/teeworlds/spans.test.ts',
  scrapmechanic: 'test/scrapmechanic/spans.test.ts',
};

/** `gaps` for leaves under `prefix` (`update`, `packet`): each pattern anchored there instead of at the record. */
function under(prefix: string, gaps: readonly AllowedGap[]): AllowedGap[] {
  return gaps.map((g) => ({ pattern: new RegExp(g.pattern.source.replace(/\^/g, `^${prefix}\\.`)), reason: g.reason }));
}

/**
 * Capture files (`decodeFile`: a pcap, a HAR), per family: the leaves of a message record
 * that come from no bytes of the message itself. Counted only over messages that have
 * bytes (a WoW frame, a Diep WebSocket message or control frame); a record with none (a
 * connection, a key, a gap) has nothing to link. The family decoder's own record sits
 * under `prefix`, with the family's gaps there.
 */
export const CAPTURE_GAPS: Record<string, AllowedGap[]> = {
  wow: [
    {
      pattern: /^(record|conn|direction|index|time|pcapFrame|offset)$/,
      reason: 'capture metadata: the connection, the frame number, the pcap frame and time, the offset in the TCP stream',
    },
    { pattern: /^name$/, reason: 'derived: the name of opcode' },
    { pattern: /^header$/, reason: 'annotation: how the header was read (plain, with the key, inferred)' },
    { pattern: /^payloadLength$/, reason: 'derived: size - 2 (server) or size - 4 (client)' },
    { pattern: /^(complete|error)$/, reason: 'annotation: a payload with a capture gap, a frame the decoder rejected' },
    ...under('update', ALLOWED_GAPS.wow!),
  ],
  diep: [
    { pattern: /^(record|connection|time|frame|direction|index)$/, reason: 'capture metadata: the connection, the pcap frame and time, the message number' },
    { pattern: /^length$/, reason: 'derived: the length of the message bytes' },
    {
      pattern: /^(compressed|frames|control)$/,
      reason: 'WebSocket layer: permessage-deflate, the frames the message came in, the control opcode (not in these bytes)',
    },
    { pattern: /^error$/, reason: 'annotation: why the packet was not decoded' },
    ...ALLOWED_GAPS.diep!,
  ],
  teeworlds: [],
};

/** Families whose capture / demo gaps depend on each record (as above): counted to 100 % by this Node test. */
export const CAPTURE_RECORD_DEPENDENT: Record<string, string> = {
  teeworlds: 'test/teeworlds-demo/file-spans.test.ts',
};

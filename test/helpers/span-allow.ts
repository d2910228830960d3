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
    { pattern: /^baseTick$/, reason: 'tick - baseAgo (null for a full state): derived from two header fields' },
    { pattern: /^ignored$/, reason: "the client's verdict on an old or unbaselined packet, not a wire field" },
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

/**
 * Leaves of a family's JSON records that come from no bytes of their own, by path pattern,
 * with the reason. The span-coverage tests (node and Chromium) count every other leaf.
 */
import type { AllowedGap } from './span-coverage.js';

export const ALLOWED_GAPS: Record<string, AllowedGap[]> = {
  scrapmechanic: [],
  teeworlds: [],
  wow: [],
  diep: [],
  replication: [{ pattern: /^baseTick$/, reason: 'tick - baseAgo (null for a full state): derived from two header fields' }, { pattern: /^ignored$/, reason: 'the client\'s verdict on an old or unbaselined packet, not a wire field' }],
};

import type { FamilyAdapter } from './types.js';

/**
 * Network-side additions to the Teeworlds adapter (`--pcap` decoding, `watch`),
 * kept in their own file so that the snapshot codec and the network client can
 * grow separately. `teeworlds.ts` spreads these into its adapter.
 */
export const teeworldsNetExtras: Partial<Pick<FamilyAdapter, 'decodeFile' | 'watch'>> & { options?: FamilyAdapter['options'] } = {};

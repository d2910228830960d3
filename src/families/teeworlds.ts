import type { FamilyAdapter } from './types.js';
import { notYet } from './not-yet.js';

/** The teeworlds adapter. Replaced by its protocol issue. */
export const teeworlds: FamilyAdapter = notYet('teeworlds');

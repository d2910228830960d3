import type { FamilyAdapter } from './types.js';
import { notYet } from './not-yet.js';

/** The diep adapter. Replaced by its protocol issue. */
export const diep: FamilyAdapter = notYet('diep');

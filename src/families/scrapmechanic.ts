import type { FamilyAdapter } from './types.js';
import { notYet } from './not-yet.js';

/** The scrapmechanic adapter. Replaced by its protocol issue. */
export const scrapmechanic: FamilyAdapter = notYet('scrapmechanic');

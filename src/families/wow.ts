import type { FamilyAdapter } from './types.js';
import { notYet } from './not-yet.js';

/** The wow adapter. Replaced by its protocol issue. */
export const wow: FamilyAdapter = notYet('wow');

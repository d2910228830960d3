import type { FamilyAdapter } from './types.js';
import { scrapmechanic } from './scrapmechanic.js';
import { teeworlds } from './teeworlds.js';
import { wow } from './wow.js';
import { diep } from './diep.js';
import { replication } from './replication.js';

/** Every family the CLI and the inspector know, in display order. */
export const FAMILIES: readonly FamilyAdapter[] = [scrapmechanic, teeworlds, wow, diep, replication];

/** Find a family by name or alias (case-insensitive). */
export function findFamily(name: string): FamilyAdapter | undefined {
  const n = name.toLowerCase();
  return FAMILIES.find((f) => f.name === n || (f.aliases ?? []).includes(n));
}

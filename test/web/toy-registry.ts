/** The registry the inspector's browser tests build the page with: the real families plus the toy one. */
import type { FamilyAdapter } from '../../src/families/types.js';
import { FAMILIES as REAL } from '../../src/families/registry.js';
import { toy } from './toy-family.js';

export const FAMILIES: readonly FamilyAdapter[] = [...REAL, toy];

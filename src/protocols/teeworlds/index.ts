/** Public API of the Teeworlds / DDNet family. Filled in by its protocol issues. */
export const FAMILY = 'teeworlds' as const;
export * from './net/index.js';

/** Public API of the diep family. Filled in by its protocol issue. */
export const FAMILY = 'diep' as const;

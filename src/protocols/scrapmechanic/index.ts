/** Public API of the scrapmechanic family. Filled in by its protocol issue. */
export const FAMILY = 'scrapmechanic' as const;

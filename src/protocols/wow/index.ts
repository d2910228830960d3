/** Public API of the wow family. Filled in by its protocol issue. */
export const FAMILY = 'wow' as const;

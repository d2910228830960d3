/** Public API of the teeworlds family. Filled in by its protocol issue. */
export const FAMILY = 'teeworlds' as const;

/** Field tables of known builds, compiled. */
import { BUILD_6F59094D } from './build-6f59094d.js';
import { compileFieldTable, type FieldTable } from './schema.js';

export * from './schema.js';
export { BUILD_6F59094D } from './build-6f59094d.js';

/** The field table of client build 6f59094d (the default everywhere). */
export const FIELDS_6F59094D: FieldTable = compileFieldTable(BUILD_6F59094D);

/**
 * One row of the replication bench in a process of its own (see
 * `runReplicationBench`): `tsx bench/replication-row.ts <plan index>` prints
 * the row as JSON on stdout.
 */
import { runPlan } from './replication.bench.js';

process.stdout.write(JSON.stringify(runPlan(Number(process.argv[2]))));

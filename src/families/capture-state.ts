/**
 * The client state after each message of a capture that holds several
 * connections (a WoW pcap, a Diep pcap or HAR): every connection keeps its own
 * client mirror (the family's stream decoder); the table shown after a message
 * is all of them, the first connection's ids plain and the others' prefixed by
 * `conn N `, with only the rows of the message's own connection marked as
 * created or changed. Every message gets a table (an empty one before the first
 * update), so the page can rebuild the state at any message from keyframes and
 * diffs.
 */
import type { EntityRow, EntityTable } from './types.js';

/** Connections whose table is kept at most (the first seen is dropped; its rows leave the table). */
const MAX_CONNECTIONS = 256;

interface ConnTable {
  /** The rows as the connection's last message left them, unmarked, ids prefixed. */
  rows: EntityRow[];
}

export class ConnectionStates {
  private readonly conns = new Map<number, ConnTable>();
  private first: number | undefined;

  /**
   * The state after a message of connection `conn`. `table` is that connection's
   * state after it (its decoder's `state()`); undefined when the message changed no
   * state (a handshake, a serverbound message, a non-update frame).
   */
  after(conn: number | undefined, table: EntityTable | undefined): EntityTable {
    let marked: EntityRow[] | undefined;
    let removed: string[] = [];
    if (conn !== undefined && table !== undefined) {
      this.first ??= conn;
      const prefix = conn === this.first ? '' : `conn ${conn} `;
      marked = prefix === '' ? table.rows : table.rows.map((r) => ({ ...r, id: prefix + r.id }));
      removed = prefix === '' ? table.removed : table.removed.map((id) => prefix + id);
      const rows = marked.map((r) => (r.created || r.changed.length > 0 ? { id: r.id, type: r.type, fields: r.fields, changed: [] } : r));
      this.conns.set(conn, { rows });
      if (this.conns.size > MAX_CONNECTIONS) this.conns.delete(this.conns.keys().next().value!);
    }
    const out: EntityRow[] = [];
    for (const [c, t] of this.conns) {
      if (c === conn && marked !== undefined) out.push(...marked);
      else out.push(...t.rows);
    }
    return { rows: out, removed };
  }
}

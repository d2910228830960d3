/** What one test client saw over a relay: the shared record of the NATS relay test's parts. */
export interface Seen {
  /** ticks of the packets it verified, with the view hash and the time of each */
  ticks: number[];
  hashes: number[];
  at: number[];
  /** (re)connections: when, and to which relay */
  connects: Array<{ at: number; relay: number }>;
  errors: string[];
}

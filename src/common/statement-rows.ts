/**
 * Rows one statement writes when a sync stores a gateway's lists. On the embedded database a
 * statement runs on the replica's own thread: one that wrote a large gateway's 639 tools or their
 * pins held it for over a second on a slow machine. A chunk of this size holds it for a fraction
 * of that, and other requests run between chunks.
 */
export const STATEMENT_ROWS = 100;

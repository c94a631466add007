/** One process a replica runs for a stdio gateway. */
export interface StdioProcessStatus {
  pid: number;
  /** `warm`: a spare no session has used; `in-use`: one upstream session's own. */
  state: 'warm' | 'in-use';
  rssBytes: number | null;
  startedAt: string;
}

/** A stdio gateway's processes on one replica, for its page and the REST API. */
export interface StdioGatewayStatus {
  processes: StdioProcessStatus[];
  /** Processes that ended without Portico ending them. */
  restarts: number;
  /** Failed starts in a row; each doubles the wait before the next. */
  failures: number;
  lastExit: string | null;
  /** Until when new starts are refused after failures. */
  retryAt: string | null;
  /** The last lines the processes wrote to stderr, secrets cut out. */
  stderr: string[];
}

/** The policy that asks for a person's approval before a call goes upstream. */
export interface ApprovalPolicy {
  policy: { id: string; name: string };
  /** The policy's revision as it asked: a remembered yes holds for this one only. */
  revision: string;
  /** The policy's own words for the person, shown above the call. */
  message: string | null;
  /** How long a yes may be remembered for this user and tool; 0: asked every time. */
  rememberSeconds: number;
}

/**
 * What became of an approval, as the call's audit entry keeps it: who answered, when, and what
 * they were shown.
 */
export interface ApprovalRecord {
  policy: { id: string; name: string };
  /**
   * - `asked`: the person is asked now, in an input round (its entry's outcome is
   *   `input_required`); the retry's entry says what they answered;
   * - `approved`, `declined`: the person answered (`cancelled` when they dismissed the question);
   * - `remembered`: an earlier yes, still valid, let the call through without asking;
   * - `unavailable`: the client cannot be asked, so the call was refused;
   * - `unanswered`: no answer came (the client did not reply in time, or went away);
   * (an `approved` yes holds for the rest of the call, through the upstream's own input rounds,
   * and is noted once, when the call ends, with when it was given)
   * - `overruled`: the person said yes, but a policy saved while they were asked denies the call,
   *   which did not go upstream (`overruledBy`);
   * - `replayed`: a retry brought a state whose yes had let its call through already (a yes is
   *   good for one call), so the call was refused.
   */
  outcome:
    | 'asked'
    | 'approved'
    | 'declined'
    | 'cancelled'
    | 'remembered'
    | 'unavailable'
    | 'unanswered'
    | 'overruled'
    | 'replayed';
  by: string;
  at: string;
  shown: string;
  /** Until when the yes is remembered, when the person asked for it to be. */
  rememberedUntil?: string;
  /** The policy that denied the call after the yes (`overruled`); null: none named. */
  overruledBy?: { id: string; name: string } | null;
}

/** One password sign-in attempt, as PasswordLogin reports it (never the password). */
export interface LoginAttempt {
  outcome: 'ok' | 'denied';
  durationMs: number;
  username: string;
  subject?: string;
  userId?: string;
  teamIds?: string[];
  /** Why it was refused. */
  detail?: string;
}

/**
 * Where PasswordLogin reports every attempt. The audit trail binds it in its own module: it sits
 * above auth (its entries name principals), so auth never imports it.
 */
export abstract class LoginRecorder {
  abstract record(attempt: LoginAttempt): void;
}

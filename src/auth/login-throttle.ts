import { Injectable } from '@nestjs/common';
import { AuthErrorCode, AuthException } from './auth.exception';

const WINDOW_MS = 15 * 60 * 1000;
const MAX_FAILURES = 5;
const MAX_TRACKED = 10_000;

/**
 * Slows password guessing: after 5 failed logins for one client and username within 15 minutes,
 * further attempts are refused until the window passes. Kept per replica, in memory.
 */
@Injectable()
export class LoginThrottle {
  private readonly failures = new Map<string, number[]>();

  assertAllowed(key: string, now = Date.now()): void {
    const recent = this.recent(key, now);
    if (recent.length >= MAX_FAILURES) {
      const retryAfter = Math.ceil((recent[0]! + WINDOW_MS - now) / 1000);
      throw new AuthException(
        AuthErrorCode.TooManyAttempts,
        'Too many failed logins; try again later.',
        {
          retryAfterSeconds: retryAfter,
        },
      );
    }
  }

  recordFailure(key: string, now = Date.now()): void {
    if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value!);
    this.failures.set(key, [...this.recent(key, now), now]);
  }

  recordSuccess(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string, now: number): number[] {
    return (this.failures.get(key) ?? []).filter((at) => now - at < WINDOW_MS);
  }
}

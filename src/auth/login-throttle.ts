import { Injectable } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuthErrorCode, AuthException } from './auth.exception';

const WINDOW_SECONDS = 15 * 60;
const MAX_ATTEMPTS = 5;

/**
 * Slows password guessing: a client gets 5 login attempts per username in a 15-minute window
 * unless one succeeds. Attempts are counted in the database before the password is checked, so
 * every replica sees them and a burst of parallel guesses cannot slip past the count.
 */
@Injectable()
export class LoginThrottle {
  constructor(private readonly dataSource: DataSource) {}

  /** Counts an attempt; throws 429 when the window's attempts are used up. */
  async attempt(client: string, username: string): Promise<void> {
    const rows: { attempts: number; retry_after: number }[] = await this.dataSource.query(
      `INSERT INTO login_attempt AS a (key, attempts, window_started_at) VALUES ($1, 1, now())
       ON CONFLICT (key) DO UPDATE SET
         attempts = CASE WHEN a.window_started_at > now() - make_interval(secs => $2)
                         THEN a.attempts + 1 ELSE 1 END,
         window_started_at = CASE WHEN a.window_started_at > now() - make_interval(secs => $2)
                                  THEN a.window_started_at ELSE now() END
       RETURNING attempts,
         ceil(extract(epoch FROM window_started_at + make_interval(secs => $2) - now()))::int
           AS retry_after`,
      [keyOf(client, username), WINDOW_SECONDS],
    );
    const { attempts, retry_after: retryAfterSeconds } = rows[0]!;
    if (attempts > MAX_ATTEMPTS) {
      throw new AuthException(
        AuthErrorCode.TooManyAttempts,
        'Too many failed logins; try again later.',
        { retryAfterSeconds },
      );
    }
  }

  /** Forgets the client's attempts, and every window that has passed. */
  async succeeded(client: string, username: string): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM login_attempt
        WHERE key = $1 OR window_started_at <= now() - make_interval(secs => $2)`,
      [keyOf(client, username), WINDOW_SECONDS],
    );
  }
}

function keyOf(client: string, username: string): string {
  return createHash('sha256').update(`${client}\0${username}`).digest('hex');
}

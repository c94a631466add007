import { AuthException } from '../../src/auth/auth.exception';
import { LoginThrottle } from '../../src/auth/login-throttle';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

describe('LoginThrottle', () => {
  let db: TestDataSource;
  let throttle: LoginThrottle;

  beforeAll(async () => {
    db = await openTestDataSource();
    throttle = new LoginThrottle(db.dataSource);
  });

  afterAll(async () => {
    await db.close();
  });

  async function attempts(client: string, username: string, count: number): Promise<void> {
    for (let i = 0; i < count; i++) await throttle.attempt(client, username);
  }

  it('allows five attempts of a client and username in the window, then refuses with Retry-After', async () => {
    await attempts('10.0.0.1', 'admin', 5);
    const refused = await throttle.attempt('10.0.0.1', 'admin').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(AuthException);
    const retryAfter = (refused as AuthException).details?.retryAfterSeconds as number;
    expect(retryAfter).toBeGreaterThan(14 * 60);
    expect(retryAfter).toBeLessThanOrEqual(15 * 60);
    await expect(throttle.attempt('10.0.0.2', 'admin')).resolves.toBeUndefined();
    await expect(throttle.attempt('10.0.0.1', 'other')).resolves.toBeUndefined();
  });

  it('counts a burst of parallel attempts before any password is checked', async () => {
    const outcomes = await Promise.allSettled(
      Array.from({ length: 20 }, () => throttle.attempt('10.0.0.3', 'admin')),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(5);
  });

  it('is shared by every instance on the database, as replicas are', async () => {
    await attempts('10.0.0.4', 'admin', 5);
    const otherReplica = new LoginThrottle(db.dataSource);
    await expect(otherReplica.attempt('10.0.0.4', 'admin')).rejects.toThrow(AuthException);
  });

  it('cannot be flushed by attempts on many other usernames', async () => {
    await attempts('10.0.0.5', 'admin', 5);
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => throttle.attempt('10.0.0.5', `junk-${i}`)),
    );
    await expect(throttle.attempt('10.0.0.5', 'admin')).rejects.toThrow(AuthException);
  });

  it('starts a new window once the old one has passed', async () => {
    await attempts('10.0.0.6', 'admin', 6).catch(() => undefined);
    await db.dataSource.query(
      "UPDATE login_attempt SET window_started_at = now() - interval '16 minutes'",
    );
    await expect(throttle.attempt('10.0.0.6', 'admin')).resolves.toBeUndefined();
  });

  it('forgets the attempts on success, and clears windows that have passed', async () => {
    await attempts('10.0.0.7', 'admin', 4);
    await throttle.succeeded('10.0.0.7', 'admin');
    await attempts('10.0.0.7', 'admin', 5);
    await db.dataSource.query(
      "UPDATE login_attempt SET window_started_at = now() - interval '16 minutes'",
    );
    await throttle.succeeded('10.0.0.8', 'admin');
    const rows: unknown[] = await db.dataSource.query('SELECT key FROM login_attempt');
    expect(rows).toEqual([]);
  });
});

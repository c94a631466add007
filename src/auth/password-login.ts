import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { User } from '../users/user.entity';
import { AuthErrorCode, AuthException } from './auth.exception';
import { LoginRecorder } from './login-recorder';
import { LoginThrottle } from './login-throttle';
import { AuthSettings } from '../config/slices/auth.settings';
import { hashPassword, needsRehash, verifyPassword } from './password-hash';
import { KEEP_UPDATED_AT } from '../common/keep-updated-at';

/**
 * Password sign-in of local users, for the API's token route and the login pages alike. A stored
 * hash of an older format or weaker parameters is replaced at the first successful login.
 */
@Injectable()
export class PasswordLogin {
  /** A hash to verify against when the username is unknown, so that both cost the same time. */
  private unknownUserHash?: Promise<string>;

  constructor(
    private readonly dataSource: DataSource,
    private readonly throttle: LoginThrottle,
    private readonly recorder: LoginRecorder,
    private readonly authSettings: AuthSettings,
  ) {}

  /**
   * The user's id; `client` (the remote address) keys the failed-login throttle. Every attempt,
   * refused or not, goes into the audit trail (never the password).
   */
  async authenticate(username: string, password: string, client: string): Promise<string> {
    const started = performance.now();
    try {
      const userId = await this.check(username, password, client);
      this.recorder.record({
        outcome: 'ok',
        durationMs: performance.now() - started,
        subject: `user:${userId}`,
        username: username.slice(0, 255),
        userId,
        teamIds: await this.teamIds(userId),
      });
      return userId;
    } catch (error) {
      this.recorder.record({
        outcome: 'denied',
        durationMs: performance.now() - started,
        username: username.slice(0, 255),
        detail: (error as Error).message.slice(0, 500),
      });
      throw error;
    }
  }

  private async teamIds(userId: string): Promise<string[]> {
    const rows: { team_id: string }[] = await this.dataSource.query(
      'SELECT team_id FROM team_member WHERE user_id = $1',
      [userId],
    );
    return rows.map((row) => row.team_id);
  }

  private async check(username: string, password: string, client: string): Promise<string> {
    await this.throttle.attempt(client, username);
    const repository = this.dataSource.getRepository(User);
    const user = await repository.findOneBy({ username, source: 'local' });
    const stored =
      user?.passwordHash ??
      (await (this.unknownUserHash ??= hashPassword(
        'portico:no-such-user',
        this.authSettings.passwordHashing,
      )));
    const valid = await verifyPassword(password, stored);
    if (!user || user.passwordHash === null || !valid || user.disabled)
      throw new AuthException(AuthErrorCode.InvalidCredentials, 'Wrong username or password.');
    await this.throttle.succeeded(client, username);
    const upgraded = needsRehash(user.passwordHash, this.authSettings.passwordHashing)
      ? await hashPassword(password, this.authSettings.passwordHashing)
      : undefined;
    await repository.update(
      { id: user.id },
      {
        lastLoginAt: new Date(),
        ...(upgraded ? { passwordHash: upgraded } : {}),
        ...KEEP_UPDATED_AT,
      },
    );
    return user.id;
  }
}

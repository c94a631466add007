import { Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AppConfig } from '../config/app-config';
import { AdminUser } from './admin-user.entity';
import { AuthErrorCode, AuthException } from './auth.exception';
import { LoginThrottle } from './login-throttle';
import { hashPassword, verifyPassword } from './password-hash';

@Injectable()
export class AdminUsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminUsersService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
    private readonly throttle: LoginThrottle,
  ) {}

  /**
   * Makes sure the admin account exists. ADMIN_PASSWORD, when set, is the password (and rotates a
   * stored one); otherwise the first start generates one and prints it this once.
   */
  async onApplicationBootstrap(): Promise<void> {
    const repository = this.dataSource.getRepository(AdminUser);
    const { adminUsername: username, adminPassword } = this.config;
    const existing = await repository.findOneBy({ username });
    if (existing) {
      if (adminPassword !== null && !(await verifyPassword(adminPassword, existing.passwordHash))) {
        await repository.update({ username }, { passwordHash: await hashPassword(adminPassword) });
        this.logger.log(`Admin password for '${username}' updated from ADMIN_PASSWORD.`);
      }
      return;
    }
    const password = adminPassword ?? randomBytes(15).toString('base64url');
    const inserted = await repository
      .createQueryBuilder()
      .insert()
      .values({ username, passwordHash: await hashPassword(password) })
      .orIgnore()
      .returning(['username'])
      .execute();
    if (adminPassword === null && (inserted.raw as unknown[]).length > 0) {
      // Straight to stderr: LOG_LEVEL must not hide the only copy of the password.
      process.stderr.write(
        `Generated admin password for '${username}' (shown once, store it now): ${password}\n`,
      );
    }
  }

  /** Checks a login; `client` (such as the remote address) keys the failed-login throttle. */
  async authenticate(username: string, password: string, client: string): Promise<string> {
    await this.throttle.attempt(client, username);
    const user = await this.dataSource.getRepository(AdminUser).findOneBy({ username });
    if (!user || !(await verifyPassword(password, user.passwordHash)))
      throw new AuthException(AuthErrorCode.InvalidCredentials, 'Wrong username or password.');
    await this.throttle.succeeded(client, username);
    return user.username;
  }
}

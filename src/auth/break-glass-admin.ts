import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import { DataSource } from 'typeorm';
import { AuthSettings } from '../config/slices/auth.settings';
import { EventBus } from '../events/event-bus';
import { User } from '../users/user.entity';
import { hashPassword, verifyPassword } from './password-hash';
import { whenMigrated } from './when-migrated';

/**
 * The account named by ADMIN_USERNAME is the break-glass admin: at every start it exists, is a
 * local admin, is enabled, and (when ADMIN_PASSWORD is set) has that password, whatever was done
 * to it through the API. Without ADMIN_PASSWORD, the first start generates a password and prints
 * it once.
 */
@Injectable()
export class BreakGlassAdmin implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(BreakGlassAdmin.name);
  private cancel?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: AuthSettings,
    private readonly bus: EventBus,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.cancel = await whenMigrated(this.dataSource, this.logger, () => this.ensure());
  }

  onModuleDestroy(): void {
    this.cancel?.();
  }

  private hash(password: string): Promise<string> {
    return hashPassword(password, this.config.passwordHashing);
  }

  async ensure(): Promise<void> {
    const repository = this.dataSource.getRepository(User);
    const { adminUsername: username, adminPassword } = this.config;
    const existing = await repository.findOneBy({ username });
    if (existing) {
      const repairs: Partial<User> = {};
      if (existing.role !== 'admin') repairs.role = 'admin';
      if (existing.disabled) repairs.disabled = false;
      if (existing.source !== 'local') {
        Object.assign(repairs, { source: 'local', externalIssuer: null, externalSubject: null });
      }
      const stale =
        existing.passwordHash === null ||
        (adminPassword !== null && !(await verifyPassword(adminPassword, existing.passwordHash)));
      if (stale && adminPassword !== null) {
        repairs.passwordHash = await this.hash(adminPassword);
        this.logger.log(`Admin password for '${username}' updated from ADMIN_PASSWORD.`);
      } else if (existing.passwordHash === null) {
        const generated = randomBytes(15).toString('base64url');
        repairs.passwordHash = await this.hash(generated);
        printGenerated(username, generated);
      }
      if (Object.keys(repairs).length > 0) {
        await repository.update({ id: existing.id }, repairs);
        await this.bus.publish({
          type: 'identity.changed',
          userIds: [existing.id],
          tokenIds: [],
          grantIds: [],
        });
      }
      return;
    }
    const password = adminPassword ?? randomBytes(15).toString('base64url');
    const inserted = await repository
      .createQueryBuilder()
      .insert()
      .values({ username, passwordHash: await this.hash(password), role: 'admin' })
      .orIgnore()
      .returning(['id'])
      .execute();
    if (adminPassword === null && (inserted.raw as unknown[]).length > 0)
      printGenerated(username, password);
  }
}

/** Straight to stderr: LOG_LEVEL must not hide the only copy of the password. */
function printGenerated(username: string, password: string): void {
  process.stderr.write(
    `Generated admin password for '${username}' (shown once, store it now): ${password}\n`,
  );
}

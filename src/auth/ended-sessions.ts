import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type AdminSession } from './admin-session.service';
import { EndedSession } from './ended-session.entity';

/**
 * Admin sessions ended by logging out, on every replica: a copy of the cookie (from a shared
 * machine, a proxy's log) is refused from then on, not honoured until it expires.
 */
@Injectable()
export class EndedSessions {
  constructor(private readonly dataSource: DataSource) {}

  async end(session: AdminSession): Promise<void> {
    const repository = this.dataSource.getRepository(EndedSession);
    await repository
      .createQueryBuilder()
      .insert()
      .values({ sid: session.sid, expiresAt: session.expiresAt })
      .orIgnore()
      .execute();
    // The ended sessions that have expired since need no remembering.
    await repository.createQueryBuilder().delete().where('expires_at < now()').execute();
  }

  ended(session: AdminSession): Promise<boolean> {
    return this.dataSource.getRepository(EndedSession).existsBy({ sid: session.sid });
  }
}

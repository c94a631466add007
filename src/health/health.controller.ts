import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { DatabaseTimeoutError } from '../common/database-errors';
import { DatabaseHealth } from '../database/database-health';
import { Draining } from './draining';

/**
 * How long readiness waits for the database: a partitioned one never answers, and a probe must
 * say "not ready" well within its own timeout (Kubernetes' default is one second).
 */
const READY_WAIT_MS = 800;

@ApiTags('health')
@Controller()
export class HealthController {
  /** The check under way: probes that arrive meanwhile share it rather than pile up queries. */
  private checking: Promise<boolean> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly draining: Draining,
    private readonly database: DatabaseHealth,
  ) {}

  @Public()
  @Get('healthz')
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ description: '{"status":"ok"}' })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Public()
  @Get('readyz')
  @ApiOperation({
    summary:
      'Readiness: the database answers, every migration is applied, and the replica is not stopping',
  })
  @ApiOkResponse({ description: '{"status":"ready"}' })
  @ApiServiceUnavailableResponse({
    description: 'Database unreachable, migrations pending, or the replica is shutting down.',
  })
  async ready(): Promise<{ status: 'ready' }> {
    if (this.draining.active) throw new ServiceUnavailableException('Shutting down.');
    if (!this.database.available)
      throw new ServiceUnavailableException('The database is unreachable.');
    let pending: boolean;
    let timer: NodeJS.Timeout | undefined;
    try {
      pending = await Promise.race([
        this.pendingMigrations(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new DatabaseTimeoutError('readiness', READY_WAIT_MS)),
            READY_WAIT_MS,
          );
        }),
      ]);
    } catch {
      throw new ServiceUnavailableException('The database is unreachable.');
    } finally {
      clearTimeout(timer);
    }
    if (pending) throw new ServiceUnavailableException('Database migrations are pending.');
    return { status: 'ready' };
  }

  /** Whether migrations are pending; throws when the database does not answer. */
  private pendingMigrations(): Promise<boolean> {
    this.checking ??= (async () => {
      await this.dataSource.query('SELECT 1');
      return this.dataSource.showMigrations();
    })().finally(() => (this.checking = null));
    return this.checking;
  }
}

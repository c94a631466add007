import { Controller, Get, HttpCode, ServiceUnavailableException } from '@nestjs/common';
import {
  ApiOkResponse,
  ApiOperation,
  ApiServiceUnavailableResponse,
  ApiTags,
} from '@nestjs/swagger';
import { DataSource } from 'typeorm';
import { Public } from '../auth/auth.decorators';
import { Draining } from './draining';

@ApiTags('health')
@Controller()
export class HealthController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly draining: Draining,
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
    let pending: boolean;
    try {
      await this.dataSource.query('SELECT 1');
      pending = await this.dataSource.showMigrations();
    } catch {
      throw new ServiceUnavailableException('The database is unreachable.');
    }
    if (pending) throw new ServiceUnavailableException('Database migrations are pending.');
    return { status: 'ready' };
  }
}

import { ConflictException, Controller, Get, Header, Inject, StreamableFile } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { EMBEDDED_POSTGRES, type EmbeddedPostgres } from './embedded-postgres';

@ApiTags('operations')
@Controller('api/v1/backup')
export class BackupController {
  constructor(@Inject(EMBEDDED_POSTGRES) private readonly embedded: EmbeddedPostgres | null) {}

  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({
    summary: 'Download a backup of the embedded database',
    description:
      'A gzipped tarball of the running embedded database (PGlite), for `portico restore`. ' +
      'On PostgreSQL, back up with the database’s own tools (pg_dump) instead: 409.',
  })
  @ApiOkResponse({ description: 'The backup.', content: { 'application/gzip': {} } })
  @ApiProblems(403, 409)
  async download(): Promise<StreamableFile> {
    if (!this.embedded) {
      throw new ConflictException(
        'Portico runs on PostgreSQL: back it up with pg_dump. Backups through Portico are for the embedded database.',
      );
    }
    const stamp = new Date().toISOString().replace(/[:.]/g, '-');
    return new StreamableFile(await this.embedded.dump(), {
      type: 'application/gzip',
      disposition: `attachment; filename="portico-backup-${stamp}.tar.gz"`,
    });
  }
}

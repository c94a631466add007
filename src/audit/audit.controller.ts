import { Controller, Get, Query, Res } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { type Principal } from '../auth/principal';
import { ApiProblems } from '../common/api-problems.decorator';
import { writeExport } from './audit-export';
import { AuditService } from './audit.service';
import { AuditPageDto } from './dto/audit-entry-response.dto';
import { AuditQueryDto } from './dto/audit-query.dto';

/** The audit trail: admins read all of it, operators the entries of their teams' people. */
@ApiTags('audit')
@MinRole('operator')
@Controller('api/v1/audit')
export class AuditController {
  constructor(private readonly audit: AuditService) {}

  @Get()
  @ApiOperation({
    summary: 'Read the audit trail',
    description:
      'Newest first. `format=json` gives a page and a `nextCursor`; `ndjson` and `csv` export every matching entry. Entries reach the trail within AUDIT_FLUSH_INTERVAL_MS.',
  })
  @ApiProduces('application/json', 'application/x-ndjson', 'text/csv')
  @ApiOkResponse({ type: AuditPageDto })
  @ApiProblems(400, 403, 422)
  async list(
    @Query() query: AuditQueryDto,
    @CurrentPrincipal() principal: Principal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<AuditPageDto | undefined> {
    const { limit, format, cursor, ...filters } = query;
    response.setHeader('Cache-Control', 'no-store');
    if (format === 'json') return this.audit.page(principal, filters, cursor, limit);
    const csv = format === 'csv';
    response.status(200);
    response.setHeader('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
    response.setHeader(
      'Content-Disposition',
      `attachment; filename="portico-audit.${csv ? 'csv' : 'ndjson'}"`,
    );
    await writeExport(response, this.audit.all(principal, filters), csv);
    return undefined;
  }
}

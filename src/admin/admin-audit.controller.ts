import { Get, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { writeExport } from '../audit/audit-export';
import { AuditService } from '../audit/audit.service';
import {
  AUDIT_KINDS,
  AUDIT_OUTCOMES,
  AuditQueryDto,
  MAX_AUDIT_PAGE,
} from '../audit/dto/audit-query.dto';
import { MinRole } from '../auth/auth.decorators';
import { validateDto } from '../common/validation';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { formErrors } from './form-errors';
import { hrefWith } from './pagination';

const PAGE = 50;
/** The filters the page's form sends, as text; empty fields are no filter. */
const FILTERS = [
  'from',
  'to',
  'user',
  'server',
  'gateway',
  'tool',
  'task',
  'action',
  'outcome',
  'kind',
];

function textParams(query: Record<string, unknown>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of [...FILTERS, 'cursor', 'offset']) {
    const value = query[name];
    if (typeof value === 'string' && value.trim() !== '') params[name] = value.trim();
  }
  return params;
}

/**
 * The audit trail as a page: the same filters and scope as GET /api/v1/audit (admins read all,
 * operators their teams' entries), newest first, a cursor link to older entries, and exports.
 */
@AdminController('admin/audit')
@MinRole('operator')
export class AdminAuditController {
  constructor(
    private readonly audit: AuditService,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const params = textParams(query);
    const { cursor, offset: rawOffset, ...filterText } = params;
    const offset = Math.max(0, Math.min(Number.parseInt(rawOffset ?? '0', 10) || 0, 1e9));
    let page: Awaited<ReturnType<AuditService['page']>> = { items: [], nextCursor: null };
    let formError: string | null = null;
    let errors: Record<string, string> = {};
    try {
      const {
        limit,
        format,
        cursor: checkedCursor,
        ...filters
      } = await validateDto(AuditQueryDto, {
        ...filterText,
        ...(cursor ? { cursor } : {}),
        limit: String(PAGE),
      });
      void format;
      page = await this.audit.page(request.principal!, filters, checkedCursor, limit);
    } catch (error) {
      const shown = formErrors(error);
      if (!shown) throw error;
      formError = shown.message;
      errors = shown.fields;
    }
    await this.pages.render(request, response, 'audit', {
      title: 'Audit trail',
      section: 'audit',
      everyone: request.principal!.role === 'admin',
      oneTask: filterText.task ?? null,
      filter: filterText,
      filtered: Object.keys(filterText).length > 0,
      outcomes: AUDIT_OUTCOMES.map((value) => ({ value, selected: value === filterText.outcome })),
      kinds: AUDIT_KINDS.map((value) => ({ value, selected: value === filterText.kind })),
      entries: page.items.map((entry) => ({
        ...entry,
        duration: entry.durationMs === null ? '' : `${entry.durationMs.toFixed(1)} ms`,
        digest: entry.argumentsDigest?.slice(0, 12) ?? null,
        // A task's calls (the tools/call that made it, its tasks/*), together on one page.
        taskHref: entry.task ? hrefWith('/admin/audit', { task: entry.task }) : null,
      })),
      offset,
      older: page.nextCursor
        ? hrefWith('/admin/audit', {
            ...filterText,
            cursor: page.nextCursor,
            offset: offset + PAGE,
          })
        : null,
      newest: cursor ? hrefWith('/admin/audit', filterText) : null,
      csvHref: hrefWith('/admin/audit/export', { ...filterText, format: 'csv' }),
      ndjsonHref: hrefWith('/admin/audit/export', { ...filterText, format: 'ndjson' }),
      errors,
      formError,
    });
  }

  /** Every matching entry as CSV or NDJSON, for the signed-in person, as the API exports it. */
  @Get('export')
  async export(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const params = textParams(query);
    const csv = query.format !== 'ndjson';
    const { limit, format, cursor, ...filters } = await validateDto(AuditQueryDto, {
      ...params,
      limit: String(MAX_AUDIT_PAGE),
    });
    void limit;
    void format;
    void cursor;
    response.setHeader('Cache-Control', 'no-store');
    response.setHeader('Content-Type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
    response.setHeader(
      'Content-Disposition',
      `attachment; filename="portico-audit.${csv ? 'csv' : 'ndjson'}"`,
    );
    await writeExport(response, this.audit.all(request.principal!, filters), csv);
  }
}

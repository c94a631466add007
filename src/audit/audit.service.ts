import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Principal } from '../auth/principal';
import {
  auditQuery,
  type AuditFilters,
  decodeCursor,
  encodeCursor,
  exactTimeOf,
} from './audit.query';
import {
  type AuditEntryResponseDto,
  type AuditPageDto,
  toResponse,
} from './dto/audit-entry-response.dto';

const EXPORT_PAGE = 1000;

/** Reads the audit trail, as far as the principal may. */
@Injectable()
export class AuditService {
  constructor(private readonly dataSource: DataSource) {}

  async page(
    principal: Principal,
    filters: AuditFilters,
    cursor: string | undefined,
    limit: number,
  ): Promise<AuditPageDto> {
    const after = cursor === undefined ? null : decodeCursor(cursor);
    const entries = await auditQuery(this.dataSource, principal, filters, after)
      .take(limit + 1)
      .getMany();
    const items = entries.slice(0, limit);
    const last = items.at(-1);
    const more = entries.length > limit && last !== undefined;
    return {
      items: items.map(toResponse),
      nextCursor: more
        ? encodeCursor({
            at: (await exactTimeOf(this.dataSource, last.id)) ?? last.occurredAt.toISOString(),
            id: last.id,
          })
        : null,
    };
  }

  /** Every matching entry, newest first, a page at a time: exports never hold the whole trail. */
  async *all(principal: Principal, filters: AuditFilters): AsyncGenerator<AuditEntryResponseDto> {
    let cursor: string | undefined;
    do {
      const page = await this.page(principal, filters, cursor, EXPORT_PAGE);
      yield* page.items;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }
}

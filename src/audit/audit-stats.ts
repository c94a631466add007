import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type Principal } from '../auth/principal';
import { readableBy } from './audit.query';

export interface MinuteCount {
  /** The minute's start. */
  minute: Date;
  calls: number;
  errors: number;
}

export interface SlowTool {
  tool: string;
  calls: number;
  p95Ms: number;
}

/** Figures of the last hour of MCP operations from the audit trail, for the dashboard. */
@Injectable()
export class AuditStats {
  constructor(private readonly dataSource: DataSource) {}

  /** Calls and failed calls (errors and tool errors) per minute, every minute of the hour. */
  async perMinute(principal: Principal, now = new Date()): Promise<MinuteCount[]> {
    const [scope, params] = scopeOf(principal, 1);
    const rows: { minute: string; calls: number; errors: number }[] = await this.dataSource.query(
      `SELECT floor(extract(epoch FROM occurred_at) / 60)::bigint * 60 AS minute,
              count(*)::int AS calls,
              (count(*) FILTER (WHERE outcome <> 'ok'))::int AS errors
         FROM audit_entry
        WHERE kind = 'mcp' AND occurred_at >= $1 ${scope}
        GROUP BY 1`,
      [new Date(now.getTime() - 3600_000), ...params],
    );
    const byMinute = new Map(rows.map((row) => [Number(row.minute) * 1000, row]));
    const last = Math.floor(now.getTime() / 60_000) * 60_000;
    const minutes: MinuteCount[] = [];
    for (let at = last - 59 * 60_000; at <= last; at += 60_000) {
      const row = byMinute.get(at);
      minutes.push({ minute: new Date(at), calls: row?.calls ?? 0, errors: row?.errors ?? 0 });
    }
    return minutes;
  }

  /** The tools with the slowest 95th percentile over the hour. */
  async slowestTools(principal: Principal, limit = 5, now = new Date()): Promise<SlowTool[]> {
    const [scope, params] = scopeOf(principal, 2);
    const rows: { tool: string; calls: number; p95: number }[] = await this.dataSource.query(
      `SELECT target AS tool, count(*)::int AS calls,
              percentile_cont(0.95) WITHIN GROUP (ORDER BY duration_ms) AS p95
         FROM audit_entry
        WHERE action = 'tools/call' AND target IS NOT NULL AND duration_ms IS NOT NULL
          AND occurred_at >= $1 ${scope}
        GROUP BY target
        ORDER BY p95 DESC, target
        LIMIT $2`,
      [new Date(now.getTime() - 3600_000), limit, ...params],
    );
    return rows.map((row) => ({ tool: row.tool, calls: row.calls, p95Ms: Number(row.p95) }));
  }
}

/** The same reach as the trail itself: admins everything, others their teams' and their own. */
function scopeOf(principal: Principal, usedParams: number): [string, unknown[]] {
  if (principal.role === 'admin') return ['', []];
  return [
    `AND ${readableBy('audit_entry', `$${usedParams + 1}`, `$${usedParams + 2}`)}`,
    [[...principal.teamIds], principal.subject],
  ];
}

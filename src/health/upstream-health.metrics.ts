import { Injectable, type OnModuleInit } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Metrics } from '../observability/metrics';

/**
 * Feeds `portico_upstream_up` from the gateways' recorded health, read at each scrape; a gateway
 * never contacted yet has no series.
 */
@Injectable()
export class UpstreamHealthMetrics implements OnModuleInit {
  constructor(
    private readonly metrics: Metrics,
    private readonly dataSource: DataSource,
  ) {}

  onModuleInit(): void {
    this.metrics.readUpstreamHealthFrom(async () => {
      const rows: { slug: string; status: string }[] = await this.dataSource.query(
        "SELECT slug, status FROM gateway WHERE enabled AND status <> 'unknown' ORDER BY slug",
      );
      return rows.map((row) => ({ gateway: row.slug, up: row.status === 'healthy' ? 1 : 0 }));
    });
  }
}

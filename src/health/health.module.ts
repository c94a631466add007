import { Global, Module } from '@nestjs/common';
import { Draining } from './draining';
import { HealthController } from './health.controller';
import { Metrics } from '../observability/metrics';
import { MetricsController } from './metrics.controller';
import { UpstreamHealthMetrics } from './upstream-health.metrics';

@Global()
@Module({
  controllers: [HealthController, MetricsController],
  providers: [Metrics, Draining, UpstreamHealthMetrics],
  exports: [Metrics, Draining],
})
export class HealthModule {}

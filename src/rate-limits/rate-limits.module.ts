import { Module } from '@nestjs/common';
import { RateLimitMetrics } from './rate-limit-metrics';
import { RateLimiter } from './rate-limiter.service';
import { RateLimitsController } from './rate-limits.controller';
import { RateLimitsService } from './rate-limits.service';

@Module({
  controllers: [RateLimitsController],
  providers: [RateLimitsService, RateLimiter, RateLimitMetrics],
  exports: [RateLimitsService, RateLimiter, RateLimitMetrics],
})
export class RateLimitsModule {}

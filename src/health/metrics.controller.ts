import { Controller, Get, Header, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { type Request } from 'express';
import { timingSafeEqual } from 'node:crypto';
import { Public } from '../auth/auth.decorators';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { mcpOnly, type Principal } from '../auth/principal';
import { bearerToken, PrincipalResolver } from '../auth/principal-resolver';
import { ObservabilitySettings } from '../config/slices/observability.settings';
import { Metrics } from '../observability/metrics';

@ApiTags('health')
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: Metrics,
    private readonly principals: PrincipalResolver,
    private readonly config: ObservabilitySettings,
  ) {}

  // Checked here rather than by the global guard: a scraper may also use the static METRICS_TOKEN.
  @Public()
  @Get()
  @Header('Cache-Control', 'no-store')
  @ApiOperation({ summary: 'Prometheus metrics (admin token or METRICS_TOKEN)' })
  @ApiOkResponse({ description: 'Prometheus text exposition format.' })
  async scrape(@Req() request: Request): Promise<string> {
    const token = bearerToken(request);
    if (!this.isMetricsToken(token) && !isAdmin(await this.principals.fromBearer(token))) {
      throw new AuthException(
        AuthErrorCode.Forbidden,
        'Metrics need an admin token or METRICS_TOKEN.',
      );
    }
    request.res?.type(this.metrics.registry.contentType);
    return this.metrics.registry.metrics();
  }

  private isMetricsToken(token: string): boolean {
    const expected = this.config.metricsToken;
    if (expected === null || expected.length !== token.length) return false;
    return timingSafeEqual(Buffer.from(expected), Buffer.from(token));
  }
}

function isAdmin(principal: Principal): boolean {
  return principal.role === 'admin' && !mcpOnly(principal);
}

import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { RateLimitCreateDto } from './dto/rate-limit-create.dto';
import { RateLimitPageDto, RateLimitResponseDto } from './dto/rate-limit-response.dto';
import { RateLimitUpdateDto } from './dto/rate-limit-update.dto';
import { RateLimitsService } from './rate-limits.service';

/** Admins only (no MinRole): limits bind every team. */
@ApiTags('rate-limits')
@Controller('api/v1/rate-limits')
export class RateLimitsController {
  constructor(private readonly limits: RateLimitsService) {}

  @Get()
  @ApiOperation({ summary: 'List rate limits' })
  @ApiOkResponse({ type: RateLimitPageDto })
  @ApiProblems(422)
  list(@Query() page: PageQueryDto): Promise<RateLimitPageDto> {
    return this.limits.list(page);
  }

  @Post()
  @ApiOperation({
    summary: 'Limit tool calls per token or user, on one server or everywhere, for one tool or all',
    description:
      'Counted across replicas (Redis when REDIS_URL is set, else PostgreSQL). A call past the limit gets 429 with `Retry-After` on REST invoke, and a JSON-RPC error -32014 with `data.retryAfterSeconds` on MCP. 422 `rate_limit.unknown_target` for an unknown server or tool.',
  })
  @ApiCreatedResponse({ type: RateLimitResponseDto })
  @ApiProblems(400, 422)
  create(@Body() dto: RateLimitCreateDto): Promise<RateLimitResponseDto> {
    return this.limits.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a rate limit' })
  @ApiOkResponse({ type: RateLimitResponseDto })
  @ApiProblems(400, 404)
  get(@UuidParam() id: string): Promise<RateLimitResponseDto> {
    return this.limits.get(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Edit a rate limit; its counters start afresh' })
  @ApiOkResponse({ type: RateLimitResponseDto })
  @ApiProblems(400, 404, 422)
  update(@UuidParam() id: string, @Body() dto: RateLimitUpdateDto): Promise<RateLimitResponseDto> {
    return this.limits.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a rate limit' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 404)
  remove(@UuidParam() id: string): Promise<void> {
    return this.limits.remove(id);
  }
}

import { Body, Controller, Delete, Get, HttpCode, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { MinRole } from '../auth/auth.decorators';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { type Principal } from '../auth/principal';
import { ApiProblems } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { TokenCreateDto, TokenCreatedDto, TokenPageDto } from './dto/token.dto';
import { TokensService } from './tokens.service';

@ApiTags('tokens')
@MinRole('member')
@Controller('api/v1/tokens')
export class TokensController {
  constructor(private readonly tokens: TokensService) {}

  @Get()
  @ApiOperation({ summary: 'List API tokens: one’s own, or everyone’s for admins' })
  @ApiOkResponse({ type: TokenPageDto })
  @ApiProblems(422)
  list(
    @Query() page: PageQueryDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TokenPageDto> {
    return this.tokens.list(principal, page);
  }

  @Post()
  @ApiOperation({
    summary: 'Create an API token; its value is in this response only',
    description:
      'Give `role` (at most one’s own) or `serverIds` (servers one may use: the token then works on their MCP endpoints only).',
  })
  @ApiCreatedResponse({ type: TokenCreatedDto })
  @ApiProblems(400, 403, 409, 413, 422)
  create(
    @Body() dto: TokenCreateDto,
    @CurrentPrincipal() principal: Principal,
  ): Promise<TokenCreatedDto> {
    return this.tokens.create(principal, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke an API token',
    description: 'Every replica refuses it within a second.',
  })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiProblems(400, 403, 404)
  revoke(@UuidParam() id: string, @CurrentPrincipal() principal: Principal): Promise<void> {
    return this.tokens.revoke(principal, id);
  }
}

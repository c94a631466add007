import { Body, Controller, Get, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type Request } from 'express';
import { ApiProblems } from '../common/api-problems.decorator';
import { MinRole, Public } from './auth.decorators';
import { CurrentPrincipal } from './current-principal.decorator';
import { MeResponseDto } from './dto/me-response.dto';
import { TokenRequestDto } from './dto/token-request.dto';
import { TokenResponseDto } from './dto/token-response.dto';
import { PasswordLogin } from './password-login';
import { type Principal } from './principal';
import { TokenService } from './token.service';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly login: PasswordLogin,
    private readonly tokens: TokenService,
  ) {}

  @Public()
  @Post('token')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Exchange a local user’s credentials for a bearer token',
    description:
      'The token lasts TOKEN_TTL_SECONDS and acts with the user’s current role and teams; disabling or deleting the user ends it. For long-lived automation create an API token (POST /api/v1/tokens).',
  })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 401, description: 'Wrong username or password.' })
  @ApiResponse({ status: 422, description: 'Validation failed.' })
  @ApiResponse({ status: 429, description: 'Too many failed logins.' })
  async token(@Body() dto: TokenRequestDto, @Req() request: Request): Promise<TokenResponseDto> {
    const userId = await this.login.authenticate(
      dto.username,
      dto.password,
      request.ip ?? 'unknown',
    );
    return this.tokens.issueLogin(userId);
  }

  @Get('me')
  @MinRole('member')
  @ApiOperation({ summary: 'Who the bearer token acts for' })
  @ApiOkResponse({ type: MeResponseDto })
  @ApiProblems()
  me(@CurrentPrincipal() principal: Principal): MeResponseDto {
    return {
      subject: principal.subject,
      name: principal.name,
      userId: principal.userId,
      role: principal.role,
      teamIds: [...principal.teamIds],
    };
  }
}

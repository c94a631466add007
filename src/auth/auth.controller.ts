import { Body, Controller, HttpCode, Post, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import { type Request } from 'express';
import { AdminUsersService } from './admin-users.service';
import { Public } from './auth.decorators';
import { TokenRequestDto } from './dto/token-request.dto';
import { TokenResponseDto } from './dto/token-response.dto';
import { TokenService } from './token.service';

@ApiTags('auth')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly users: AdminUsersService,
    private readonly tokens: TokenService,
  ) {}

  @Public()
  @Post('token')
  @HttpCode(200)
  @ApiOperation({ summary: 'Exchange the admin credentials for a bearer token' })
  @ApiOkResponse({ type: TokenResponseDto })
  @ApiResponse({ status: 401, description: 'Wrong username or password.' })
  @ApiResponse({ status: 422, description: 'Validation failed.' })
  @ApiResponse({ status: 429, description: 'Too many failed logins.' })
  async token(@Body() dto: TokenRequestDto, @Req() request: Request): Promise<TokenResponseDto> {
    const subject = await this.users.authenticate(
      dto.username,
      dto.password,
      request.ip ?? 'unknown',
    );
    return this.tokens.issue({ subject, scope: 'admin' });
  }
}

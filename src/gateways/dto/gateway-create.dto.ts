import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsNotEmpty, IsOptional, IsString, IsUUID, IsUrl, MaxLength } from 'class-validator';
import { GATEWAY_TRANSPORTS, type GatewayTransport } from '../gateway.entity';
import { NestedObject, Optional } from '../../common/validation';
import { GatewayAuthDto } from './gateway-auth.dto';

export const UPSTREAM_URL_OPTIONS = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
  allow_underscores: true,
  // Credentials belong in `auth`, which is encrypted and never returned; the URL is shown.
  disallow_auth: true,
};

export const URL_MAX_LENGTH = 2048;

export class GatewayCreateDto {
  @ApiProperty({
    description: 'Display name; its slug prefixes every tool name of this gateway.',
    example: 'Gateway 1',
    maxLength: 200,
  })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name!: string;

  @ApiProperty({
    description: 'The upstream MCP endpoint.',
    example: 'http://127.0.0.1:8080/mcp',
    maxLength: URL_MAX_LENGTH,
  })
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  @IsUrl(UPSTREAM_URL_OPTIONS, { message: 'url must be an absolute http(s) URL' })
  url!: string;

  @ApiPropertyOptional({
    description: 'Upstream transport.',
    enum: GATEWAY_TRANSPORTS,
    default: 'streamable-http',
  })
  @Optional()
  @IsIn(GATEWAY_TRANSPORTS)
  transport?: GatewayTransport;

  @ApiPropertyOptional({
    description:
      'The owning team; null (the default for admins) makes it global, which only admins manage. Operators must name one of their teams, unless they are in exactly one.',
    format: 'uuid',
    nullable: true,
  })
  @IsOptional()
  @IsUUID()
  teamId?: string | null;

  @ApiPropertyOptional({ description: 'Upstream credentials (write-only).', type: GatewayAuthDto })
  @Optional()
  @NestedObject(() => GatewayAuthDto)
  auth?: GatewayAuthDto;
}

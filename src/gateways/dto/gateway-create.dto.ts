import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsIn,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUrl,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { GATEWAY_TRANSPORTS, type GatewayTransport } from '../gateway.entity';
import { GatewayAuthDto } from './gateway-auth.dto';

export const UPSTREAM_URL_OPTIONS = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
  allow_underscores: true,
};

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
    maxLength: 2048,
  })
  @IsString()
  @MaxLength(2048)
  @IsUrl(UPSTREAM_URL_OPTIONS, { message: 'url must be an absolute http(s) URL' })
  url!: string;

  @ApiPropertyOptional({
    description: 'Upstream transport.',
    enum: GATEWAY_TRANSPORTS,
    default: 'streamable-http',
  })
  @IsOptional()
  @IsIn(GATEWAY_TRANSPORTS)
  transport?: GatewayTransport;

  @ApiPropertyOptional({ description: 'Upstream credentials (write-only).', type: GatewayAuthDto })
  @IsOptional()
  @ValidateNested()
  @Type(() => GatewayAuthDto)
  auth?: GatewayAuthDto;
}

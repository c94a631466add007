import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  IsString,
  MaxLength,
  ValidateIf,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import { GATEWAY_AUTH_TYPES, type GatewayAuthType } from '../gateway.entity';

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/;
// Headers the upstream client sets itself; an operator value would break the protocol.
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'accept',
  'connection',
  'transfer-encoding',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
]);

export function headerMapProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'must be an object';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return 'must contain at least one header';
  if (entries.length > 32) return 'must contain at most 32 headers';
  for (const [name, header] of entries) {
    if (!HEADER_NAME.test(name)) return `has an invalid header name '${name}'`;
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      return `may not set the reserved header '${name}'`;
    if (typeof header !== 'string' || header.length > 8192 || /[\r\n\0]/.test(header)) {
      return `header '${name}' must be a single-line string of at most 8192 characters`;
    }
  }
  return null;
}

function IsHeaderMap() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isHeaderMap',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => headerMapProblem(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${headerMapProblem(args.value)}`,
      },
    });
}

/** Credentials Portico sends to the upstream. Write-only: no response ever contains them. */
export class GatewayAuthDto {
  @ApiProperty({
    description: 'How Portico authenticates to the upstream.',
    enum: GATEWAY_AUTH_TYPES,
  })
  @IsIn(GATEWAY_AUTH_TYPES)
  type!: GatewayAuthType;

  @ApiPropertyOptional({
    description: "Bearer token, required when type is 'bearer'.",
    writeOnly: true,
    maxLength: 8192,
  })
  @ValidateIf((auth: GatewayAuthDto) => auth.type === 'bearer')
  @IsString()
  @IsNotEmpty()
  @MaxLength(8192)
  token?: string;

  @ApiPropertyOptional({
    description: "Header names and values, required when type is 'headers'.",
    writeOnly: true,
    type: 'object',
    additionalProperties: { type: 'string' },
    example: { 'X-API-Key': 'secret' },
  })
  @ValidateIf((auth: GatewayAuthDto) => auth.type === 'headers')
  @IsObject()
  @IsHeaderMap()
  headers?: Record<string, string>;
}

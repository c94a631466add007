import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsIn,
  IsNotEmpty,
  IsObject,
  Matches,
  IsString,
  MaxLength,
  ValidateIf,
  registerDecorator,
  type ValidationArguments,
} from 'class-validator';
import {
  GATEWAY_AUTH_TYPES,
  type GatewayAuthType,
  OAUTH_MODES,
  type OAuthMode,
} from '../gateway.entity';

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

  @ApiPropertyOptional({
    description:
      "Required when type is 'oauth'. `shared`: an operator connects one account (Connect on the gateway's page) and every call uses it. `per-user`: each user connects their own account and calls use the caller's token; sync uses the account an operator connected for the gateway. `client-credentials`: Portico is a machine client of the provider (needs clientId and clientSecret).",
    enum: OAUTH_MODES,
  })
  @ValidateIf((auth: GatewayAuthDto) => auth.type === 'oauth')
  @IsIn(OAUTH_MODES)
  mode?: OAuthMode;

  @ApiPropertyOptional({
    description:
      "OAuth client id registered beforehand at the upstream's authorization server (register `$PUBLIC_URL/admin/connections/callback` as its redirect URI). Without it Portico registers a client itself (dynamic client registration, RFC 7591). Required for 'client-credentials' and with a clientSecret.",
    maxLength: 512,
  })
  @ValidateIf(
    (auth: GatewayAuthDto) =>
      auth.type === 'oauth' &&
      (auth.clientId !== undefined ||
        auth.clientSecret !== undefined ||
        auth.mode === 'client-credentials'),
  )
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  clientId?: string;

  @ApiPropertyOptional({
    description:
      "Secret of the pre-registered OAuth client (write-only). Required for 'client-credentials'.",
    writeOnly: true,
    maxLength: 2048,
  })
  @ValidateIf(
    (auth: GatewayAuthDto) =>
      auth.type === 'oauth' &&
      (auth.clientSecret !== undefined || auth.mode === 'client-credentials'),
  )
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  clientSecret?: string;

  @ApiPropertyOptional({
    description:
      'OAuth scopes to ask for, space-separated; by default those the upstream advertises in its protected resource metadata.',
    maxLength: 1024,
    example: 'mcp',
  })
  @ValidateIf((auth: GatewayAuthDto) => auth.type === 'oauth' && auth.scope !== undefined)
  @IsString()
  @MaxLength(1024)
  @Matches(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, {
    message: 'scope must be space-separated OAuth scope tokens',
  })
  scope?: string;
}

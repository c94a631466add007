import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  IsBoolean,
  IsIn,
  IsUrl,
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
  TOKEN_CLIENT_AUTHS,
  TOKEN_EXCHANGE_DIALECTS,
  type TokenClientAuth,
  type TokenExchangeDialect,
} from '../../upstream/upstream-credentials';
import { UPSTREAM_URL_OPTIONS, URL_MAX_LENGTH } from './upstream-url';

const exchanging = (auth: GatewayAuthDto) => auth.type === 'token-exchange';

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
      "OAuth client id registered beforehand at the upstream's authorization server (register `$PUBLIC_URL/admin/connections/callback` as its redirect URI). Without it Portico registers a client itself (dynamic client registration, RFC 7591). Required for 'client-credentials' and with a clientSecret. For 'token-exchange' (required): Portico's client at the token service.",
    maxLength: 512,
  })
  @ValidateIf(
    (auth: GatewayAuthDto) =>
      exchanging(auth) ||
      (auth.type === 'oauth' &&
        (auth.clientId !== undefined ||
          auth.clientSecret !== undefined ||
          auth.mode === 'client-credentials')),
  )
  @IsString()
  @IsNotEmpty()
  @MaxLength(512)
  clientId?: string;

  @ApiPropertyOptional({
    description:
      "Secret of the pre-registered OAuth client (write-only). Required for 'client-credentials'. For 'token-exchange': Portico's client secret at the token service.",
    writeOnly: true,
    maxLength: 2048,
  })
  @ValidateIf(
    (auth: GatewayAuthDto) =>
      (exchanging(auth) && auth.clientSecret !== undefined) ||
      (auth.type === 'oauth' &&
        (auth.clientSecret !== undefined || auth.mode === 'client-credentials')),
  )
  @IsString()
  @IsNotEmpty()
  @MaxLength(2048)
  clientSecret?: string;

  @ApiPropertyOptional({
    description:
      "OAuth scopes to ask for, space-separated; by default those the upstream advertises in its protected resource metadata. For 'token-exchange': the scope asked of the token service (for Entra's on-behalf-of, the upstream's, e.g. `api://upstream/.default`).",
    maxLength: 1024,
    example: 'mcp',
  })
  @ValidateIf(
    (auth: GatewayAuthDto) =>
      (auth.type === 'oauth' || exchanging(auth)) && auth.scope !== undefined,
  )
  @IsString()
  @MaxLength(1024)
  @Matches(/^[\x21\x23-\x5B\x5D-\x7E]+( [\x21\x23-\x5B\x5D-\x7E]+)*$/, {
    message: 'scope must be space-separated OAuth scope tokens',
  })
  scope?: string;

  @ApiPropertyOptional({
    description:
      "For 'token-exchange' (required): the token endpoint of the security token service that exchanges the caller's token for one meant for this upstream. Same rules as the gateway's url (http(s), no credentials in it); redirects are not followed.",
    maxLength: URL_MAX_LENGTH,
    example: 'https://sso.example.com/realms/company/protocol/openid-connect/token',
  })
  @ValidateIf(exchanging)
  @IsString()
  @MaxLength(URL_MAX_LENGTH)
  @IsUrl(UPSTREAM_URL_OPTIONS, { message: 'tokenUrl must be an absolute http(s) URL' })
  tokenUrl?: string;

  @ApiPropertyOptional({
    description:
      "For 'token-exchange': the request the token service takes. `rfc8693` (default): RFC 8693 token exchange (Keycloak, Okta, most). `entra-obo`: Microsoft Entra ID's on-behalf-of flow (a JWT bearer grant with `requested_token_use=on_behalf_of`; the upstream is named by scope).",
    enum: TOKEN_EXCHANGE_DIALECTS,
    default: 'rfc8693',
  })
  @ValidateIf((auth: GatewayAuthDto) => exchanging(auth) && auth.dialect !== undefined)
  @IsIn(TOKEN_EXCHANGE_DIALECTS)
  dialect?: TokenExchangeDialect;

  @ApiPropertyOptional({
    description:
      "For 'token-exchange': how Portico authenticates to the token service with its client id and secret (RFC 6749 §2.3.1): HTTP Basic (default) or in the form body.",
    enum: TOKEN_CLIENT_AUTHS,
    default: 'client_secret_basic',
  })
  @ValidateIf((auth: GatewayAuthDto) => exchanging(auth) && auth.clientAuth !== undefined)
  @IsIn(TOKEN_CLIENT_AUTHS)
  clientAuth?: TokenClientAuth;

  @ApiPropertyOptional({
    description:
      "For 'token-exchange': the `audience` asked for, the upstream's logical name at the token service (a Keycloak client id, an Okta authorization server audience).",
    maxLength: 1024,
  })
  @ValidateIf((auth: GatewayAuthDto) => exchanging(auth) && auth.audience !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  audience?: string;

  @ApiPropertyOptional({
    description:
      "For 'token-exchange': the `resource` asked for (RFC 8707), the upstream's URI, for token services that take it.",
    maxLength: URL_MAX_LENGTH,
  })
  @ValidateIf((auth: GatewayAuthDto) => exchanging(auth) && auth.resource !== undefined)
  @IsString()
  @IsNotEmpty()
  @MaxLength(URL_MAX_LENGTH)
  resource?: string;

  @ApiPropertyOptional({
    description:
      "For 'token-exchange' with dialect rfc8693: when true, Portico states itself as the actor, sending a token of its own (a client credentials grant at the same token service) as `actor_token`, so that the issued token says Portico acts for the caller (`act` claim).",
    default: false,
  })
  @ValidateIf((auth: GatewayAuthDto) => exchanging(auth) && auth.actor !== undefined)
  @IsBoolean()
  actor?: boolean;
}

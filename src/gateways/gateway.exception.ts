import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum GatewayErrorCode {
  NotFound = 'gateway.not_found',
  NameTaken = 'gateway.name_taken',
  SlugTaken = 'gateway.slug_taken',
  UrlTaken = 'gateway.url_taken',
  SlugEmpty = 'gateway.slug_empty',
  ToolNameClash = 'gateway.tool_name_clash',
  ToolNameTooLong = 'gateway.tool_name_too_long',
  Disabled = 'gateway.disabled',
  SyncInProgress = 'gateway.sync_in_progress',
  SyncSuperseded = 'gateway.sync_superseded',
  /** Nothing answered: no connection, no answer in time, a lost stream. */
  UpstreamUnavailable = 'gateway.upstream_unavailable',
  /** The upstream answered, but with an error (HTTP or JSON-RPC) or with what is not MCP. */
  UpstreamFailing = 'gateway.upstream_failing',
  /** The upstream answers, but speaks only versions of MCP that Portico does not. */
  UpstreamIncompatible = 'gateway.upstream_incompatible',
  /** An OAuth connection was asked of a gateway (or mode) that has none of that kind. */
  NotOAuth = 'gateway.not_oauth',
  /** An OAuth connection that this principal may not make or remove. */
  ConnectionForbidden = 'gateway.connection_forbidden',
  /** The provider refused the authorization, or its answer did not match what was started. */
  AuthorizationFailed = 'gateway.authorization_failed',
  StdioCommandNotAllowed = 'gateway.stdio_command_not_allowed',
  /** The team has a gateway of that registry server already (an import raced another). */
  ImportedAlready = 'gateway.imported_already',
}

export class GatewayException extends DomainException<GatewayErrorCode> {}

registerProblemStatuses(GatewayException, {
  [GatewayErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [GatewayErrorCode.NameTaken]: HttpStatus.CONFLICT,
  [GatewayErrorCode.SlugTaken]: HttpStatus.CONFLICT,
  [GatewayErrorCode.UrlTaken]: HttpStatus.CONFLICT,
  [GatewayErrorCode.SlugEmpty]: HttpStatus.UNPROCESSABLE_ENTITY,
  [GatewayErrorCode.ToolNameClash]: HttpStatus.CONFLICT,
  [GatewayErrorCode.ToolNameTooLong]: HttpStatus.CONFLICT,
  [GatewayErrorCode.Disabled]: HttpStatus.CONFLICT,
  [GatewayErrorCode.SyncInProgress]: HttpStatus.CONFLICT,
  [GatewayErrorCode.SyncSuperseded]: HttpStatus.CONFLICT,
  [GatewayErrorCode.UpstreamUnavailable]: HttpStatus.BAD_GATEWAY,
  [GatewayErrorCode.UpstreamFailing]: HttpStatus.BAD_GATEWAY,
  [GatewayErrorCode.UpstreamIncompatible]: HttpStatus.UNPROCESSABLE_ENTITY,
  [GatewayErrorCode.NotOAuth]: HttpStatus.UNPROCESSABLE_ENTITY,
  [GatewayErrorCode.ConnectionForbidden]: HttpStatus.FORBIDDEN,
  [GatewayErrorCode.AuthorizationFailed]: HttpStatus.UNPROCESSABLE_ENTITY,
  [GatewayErrorCode.StdioCommandNotAllowed]: HttpStatus.UNPROCESSABLE_ENTITY,
  [GatewayErrorCode.ImportedAlready]: HttpStatus.CONFLICT,
});

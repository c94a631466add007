import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum McpRegistryErrorCode {
  /** The registry named is not one the operator configured (MCP_REGISTRIES); none is fetched. */
  UnknownRegistry = 'mcp_registry.unknown_registry',
  /** The registry has no such server or version. */
  NotFound = 'mcp_registry.not_found',
  /** The registry could not be read: unreachable, slow, too large, bad JSON, a looping cursor. */
  RegistryFailed = 'mcp_registry.registry_failed',
  /** The entry cannot become a gateway as asked (a value missing, a kind Portico does not run). */
  ImportRefused = 'mcp_registry.import_refused',
}

export class McpRegistryException extends DomainException<McpRegistryErrorCode> {}

registerProblemStatuses(McpRegistryException, {
  [McpRegistryErrorCode.UnknownRegistry]: HttpStatus.UNPROCESSABLE_ENTITY,
  [McpRegistryErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [McpRegistryErrorCode.RegistryFailed]: HttpStatus.BAD_GATEWAY,
  [McpRegistryErrorCode.ImportRefused]: HttpStatus.UNPROCESSABLE_ENTITY,
});

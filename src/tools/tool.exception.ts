import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum ToolErrorCode {
  NotFound = 'tool.not_found',
  Disabled = 'tool.disabled',
  /** Held back (definition-pin.ts) until an operator approves its definition. */
  Quarantined = 'tool.quarantined',
  /** Nothing answered: no connection, no answer in time, a lost stream. */
  UpstreamUnavailable = 'tool.upstream_unavailable',
  /** The upstream answered, but with an error (HTTP or JSON-RPC) or with what is not MCP. */
  UpstreamFailing = 'tool.upstream_failing',
  /** Portico did not send the call: the upstream's breaker is open or its queue is full. */
  UpstreamRefused = 'tool.upstream_refused',
  /** A policy wants a person's approval, which only an MCP client can be asked for. */
  ApprovalRequired = 'tool.approval_required',
  /** The arguments hold more values than a policy may judge. */
  ArgumentsTooLarge = 'tool.arguments_too_large',
}

export class ToolException extends DomainException<ToolErrorCode> {}

registerProblemStatuses(ToolException, {
  [ToolErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [ToolErrorCode.Disabled]: HttpStatus.CONFLICT,
  [ToolErrorCode.Quarantined]: HttpStatus.CONFLICT,
  [ToolErrorCode.UpstreamUnavailable]: HttpStatus.BAD_GATEWAY,
  [ToolErrorCode.UpstreamFailing]: HttpStatus.BAD_GATEWAY,
  [ToolErrorCode.UpstreamRefused]: HttpStatus.SERVICE_UNAVAILABLE,
  [ToolErrorCode.ApprovalRequired]: HttpStatus.FORBIDDEN,
  [ToolErrorCode.ArgumentsTooLarge]: HttpStatus.UNPROCESSABLE_ENTITY,
});

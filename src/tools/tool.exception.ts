import { DomainException } from '../common/domain.exception';

export enum ToolErrorCode {
  NotFound = 'tool.not_found',
  Disabled = 'tool.disabled',
  /** Held back (definition-pin.ts) until an operator approves its definition. */
  Quarantined = 'tool.quarantined',
  UpstreamUnavailable = 'tool.upstream_unavailable',
  /** Portico did not send the call: the upstream's breaker is open or its queue is full. */
  UpstreamRefused = 'tool.upstream_refused',
  /** A policy wants a person's approval, which only an MCP client can be asked for. */
  ApprovalRequired = 'tool.approval_required',
  /** The arguments hold more values than a policy may judge. */
  ArgumentsTooLarge = 'tool.arguments_too_large',
}

export class ToolException extends DomainException<ToolErrorCode> {}

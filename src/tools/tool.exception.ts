import { DomainException } from '../common/domain.exception';

export enum ToolErrorCode {
  NotFound = 'tool.not_found',
  Disabled = 'tool.disabled',
  UpstreamUnavailable = 'tool.upstream_unavailable',
  /** Portico did not send the call: the upstream's breaker is open or its queue is full. */
  UpstreamRefused = 'tool.upstream_refused',
}

export class ToolException extends DomainException<ToolErrorCode> {}

import { DomainException } from '../common/domain.exception';

export enum ToolErrorCode {
  NotFound = 'tool.not_found',
  Disabled = 'tool.disabled',
  UpstreamUnavailable = 'tool.upstream_unavailable',
}

export class ToolException extends DomainException<ToolErrorCode> {}

import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum ResourceErrorCode {
  NotFound = 'resource.not_found',
  TemplateNotFound = 'resource_template.not_found',
}

export class ResourceException extends DomainException<ResourceErrorCode> {}

registerProblemStatuses(ResourceException, {
  [ResourceErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [ResourceErrorCode.TemplateNotFound]: HttpStatus.NOT_FOUND,
});

import { DomainException } from '../common/domain.exception';

export enum ResourceErrorCode {
  NotFound = 'resource.not_found',
  TemplateNotFound = 'resource_template.not_found',
}

export class ResourceException extends DomainException<ResourceErrorCode> {}

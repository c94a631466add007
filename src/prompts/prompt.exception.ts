import { DomainException } from '../common/domain.exception';

export enum PromptErrorCode {
  NotFound = 'prompt.not_found',
}

export class PromptException extends DomainException<PromptErrorCode> {}

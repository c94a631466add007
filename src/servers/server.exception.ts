import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum ServerErrorCode {
  NotFound = 'server.not_found',
  NameTaken = 'server.name_taken',
  UnknownTools = 'server.unknown_tools',
  UnknownAlwaysLoaded = 'server.unknown_always_loaded',
  UnknownResources = 'server.unknown_resources',
  UnknownResourceTemplates = 'server.unknown_resource_templates',
  UnknownPrompts = 'server.unknown_prompts',
  /** Under naming `original`, two members would show under one name or URI. */
  NameClash = 'server.name_clash',
}

export class ServerException extends DomainException<ServerErrorCode> {}

registerProblemStatuses(ServerException, {
  [ServerErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [ServerErrorCode.NameTaken]: HttpStatus.CONFLICT,
  [ServerErrorCode.UnknownTools]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ServerErrorCode.UnknownAlwaysLoaded]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ServerErrorCode.UnknownResources]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ServerErrorCode.UnknownResourceTemplates]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ServerErrorCode.UnknownPrompts]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ServerErrorCode.NameClash]: HttpStatus.CONFLICT,
});

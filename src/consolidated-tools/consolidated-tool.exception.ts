import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum ConsolidatedToolErrorCode {
  NotFound = 'consolidated_tool.not_found',
  NameTaken = 'consolidated_tool.name_taken',
  UnknownTools = 'consolidated_tool.unknown_tools',
  UnknownServers = 'consolidated_tool.unknown_servers',
  DuplicateMembers = 'consolidated_tool.duplicate_members',
  SchemaMismatch = 'consolidated_tool.schema_mismatch',
}

export class ConsolidatedToolException extends DomainException<ConsolidatedToolErrorCode> {}

registerProblemStatuses(ConsolidatedToolException, {
  [ConsolidatedToolErrorCode.NotFound]: HttpStatus.NOT_FOUND,
  [ConsolidatedToolErrorCode.NameTaken]: HttpStatus.CONFLICT,
  [ConsolidatedToolErrorCode.UnknownTools]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ConsolidatedToolErrorCode.UnknownServers]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ConsolidatedToolErrorCode.DuplicateMembers]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ConsolidatedToolErrorCode.SchemaMismatch]: HttpStatus.UNPROCESSABLE_ENTITY,
});

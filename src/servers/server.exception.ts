import { DomainException } from '../common/domain.exception';

export enum ServerErrorCode {
  NotFound = 'server.not_found',
  NameTaken = 'server.name_taken',
  UnknownTools = 'server.unknown_tools',
  UnknownAlwaysLoaded = 'server.unknown_always_loaded',
}

export class ServerException extends DomainException<ServerErrorCode> {}

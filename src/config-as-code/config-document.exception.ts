import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum ConfigDocumentErrorCode {
  /** Not YAML or JSON, or not a document the schema allows. */
  Invalid = 'config.invalid',
  /** A credential reference names a variable or file that is not there, or may not be read. */
  SecretUnavailable = 'config.secret_unavailable',
  /** The document names something that does not exist: a team, a tool, a prompt. */
  UnknownReference = 'config.unknown_reference',
  /** A unique name, slug or URL the document wants is taken by a record it does not name. */
  Conflict = 'config.conflict',
}

export class ConfigDocumentException extends DomainException<ConfigDocumentErrorCode> {}

registerProblemStatuses(ConfigDocumentException, {
  [ConfigDocumentErrorCode.Invalid]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ConfigDocumentErrorCode.SecretUnavailable]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ConfigDocumentErrorCode.UnknownReference]: HttpStatus.UNPROCESSABLE_ENTITY,
  [ConfigDocumentErrorCode.Conflict]: HttpStatus.CONFLICT,
});

import { HttpStatus } from '@nestjs/common';
import { DomainException } from '../common/domain.exception';
import { registerProblemStatuses } from '../common/problem-statuses';

export enum PinErrorCode {
  /** The hash an operator approved or rejected is no longer the one waiting: they saw another. */
  Stale = 'pin.stale',
  /** Unpinning an entry that waits for review would serve what nobody approved. */
  Quarantined = 'pin.quarantined',
}

export class PinException extends DomainException<PinErrorCode> {}

registerProblemStatuses(PinException, {
  [PinErrorCode.Stale]: HttpStatus.CONFLICT,
  [PinErrorCode.Quarantined]: HttpStatus.CONFLICT,
});

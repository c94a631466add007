import { ApiProperty } from '@nestjs/swagger';
import { Matches } from 'class-validator';

export const CONTENT_HASH_PATTERN = /^[0-9a-f]{64}$/;

/** An approval or rejection names the definition the operator reviewed, by its hash. */
export class PinDecisionDto {
  @ApiProperty({
    description:
      "The hash of the definition reviewed: the held one's (`pin.quarantine.heldHash`), or the stored one's (`pin.contentHash`) when nothing is held aside. Any other answers 409: the definition changed since.",
    pattern: CONTENT_HASH_PATTERN.source,
    example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  })
  @Matches(CONTENT_HASH_PATTERN, { message: 'hash must be 64 lowercase hex characters' })
  hash!: string;
}

import { ApiProperty } from '@nestjs/swagger';

/** One account's OAuth connection to an upstream; never a token. */
export class GatewayConnectionDto {
  @ApiProperty({
    description: "Whose account: the gateway's own (`shared`) or a user's (`user`).",
    enum: ['shared', 'user'],
  })
  account!: 'shared' | 'user';

  @ApiProperty({
    description: 'The user, for a user’s account.',
    nullable: true,
    format: 'uuid',
    type: String,
  })
  userId!: string | null;

  @ApiProperty({ description: 'Whether Portico holds usable tokens.' })
  connected!: boolean;

  @ApiProperty({
    description: 'When the access token expires.',
    nullable: true,
    type: String,
    format: 'date-time',
  })
  expiresAt!: string | null;

  @ApiProperty({
    description: 'When the tokens were last obtained or refreshed.',
    nullable: true,
    type: String,
    format: 'date-time',
  })
  refreshedAt!: string | null;

  @ApiProperty({
    description: 'Why the last refresh failed; the account must then connect again.',
    nullable: true,
    type: String,
  })
  refreshError!: string | null;
}

/** The caller's own connection to an OAuth upstream, and where to make it. */
export class GatewayMyConnectionDto {
  @ApiProperty({
    description: 'Whose tokens reach the upstream.',
    enum: ['shared', 'per-user', 'client-credentials'],
  })
  mode!: string;

  @ApiProperty({
    description:
      "The caller's connection (per-user mode); null when they never connected, or the mode has no personal accounts.",
    nullable: true,
    type: GatewayConnectionDto,
  })
  connection!: GatewayConnectionDto | null;

  @ApiProperty({
    description:
      'The admin page where a person connects an account: consenting at the provider needs a browser.',
  })
  connectUrl!: string;
}

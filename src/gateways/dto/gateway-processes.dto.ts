import { ApiProperty } from '@nestjs/swagger';

export class StdioProcessDto {
  @ApiProperty({ description: 'Process id on the replica.' })
  pid!: number;

  @ApiProperty({
    description: "'warm': a spare started ahead that no session has used; 'in-use': one session's.",
    enum: ['warm', 'in-use'],
  })
  state!: 'warm' | 'in-use';

  @ApiProperty({
    description: 'Resident memory in bytes, when known.',
    nullable: true,
    type: Number,
  })
  rssBytes!: number | null;

  @ApiProperty({ description: 'When it was started.', format: 'date-time' })
  startedAt!: string;
}

/** What the answering replica runs for a stdio gateway: each replica runs its own processes. */
export class GatewayProcessesDto {
  @ApiProperty({ description: 'The live processes on this replica.', type: [StdioProcessDto] })
  processes!: StdioProcessDto[];

  @ApiProperty({ description: 'Processes that ended without Portico ending them.' })
  restarts!: number;

  @ApiProperty({ description: 'Failed starts in a row; each doubles the wait before the next.' })
  failures!: number;

  @ApiProperty({ description: 'How the last such process ended.', nullable: true, type: String })
  lastExit!: string | null;

  @ApiProperty({
    description: 'Until when new starts are refused after failed ones.',
    nullable: true,
    type: String,
    format: 'date-time',
  })
  retryAt!: string | null;

  @ApiProperty({
    description: 'The last lines the processes wrote to stderr (bounded), secrets cut out.',
    type: [String],
  })
  stderr!: string[];
}

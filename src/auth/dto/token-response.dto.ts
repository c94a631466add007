import { ApiProperty } from '@nestjs/swagger';

export class TokenResponseDto {
  @ApiProperty({ description: 'Send as `Authorization: Bearer <accessToken>`.' })
  accessToken!: string;

  @ApiProperty({ description: 'Always Bearer.', enum: ['Bearer'] })
  tokenType!: 'Bearer';

  @ApiProperty({ description: 'When the token stops working.', format: 'date-time' })
  expiresAt!: string;
}

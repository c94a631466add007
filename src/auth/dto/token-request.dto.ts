import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsString, MaxLength } from 'class-validator';

export class TokenRequestDto {
  @ApiProperty({ description: 'Username of a local user.', example: 'admin', maxLength: 128 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(128)
  username!: string;

  @ApiProperty({ description: 'Its password.', writeOnly: true, maxLength: 1024 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(1024)
  password!: string;
}

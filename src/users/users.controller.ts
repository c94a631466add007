import { Body, Controller, Delete, Get, HttpCode, Patch, Post, Query } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { PageQueryDto } from '../common/page.dto';
import { UuidParam } from '../common/uuid-param';
import { UserCreateDto, UserUpdateDto } from './dto/user-create.dto';
import { UserPageDto, UserResponseDto } from './dto/user-response.dto';
import { UsersService } from './users.service';

/** Admins only (no MinRole): people and their roles. */
@ApiTags('users')
@Controller('api/v1/users')
export class UsersController {
  constructor(private readonly users: UsersService) {}

  @Get()
  @ApiOperation({ summary: 'List users' })
  @ApiOkResponse({ type: UserPageDto })
  @ApiProblems(422)
  list(@Query() page: PageQueryDto): Promise<UserPageDto> {
    return this.users.list(page);
  }

  @Post()
  @ApiOperation({ summary: 'Create a local user with a password' })
  @ApiCreatedResponse({ type: UserResponseDto })
  @ApiProblems(400, 403, 409, 422)
  create(@Body() dto: UserCreateDto): Promise<UserResponseDto> {
    return this.users.create(dto);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a user' })
  @ApiOkResponse({ type: UserResponseDto })
  @ApiProblems(400, 403, 404)
  get(@UuidParam() id: string): Promise<UserResponseDto> {
    return this.users.get(id);
  }

  @Patch(':id')
  @ApiOperation({
    summary: 'Change a user’s role, teams, password or state',
    description:
      'Takes effect on every replica at once, for the user’s sessions and tokens too. The break-glass admin (ADMIN_USERNAME) stays an enabled admin (409).',
  })
  @ApiOkResponse({ type: UserResponseDto })
  @ApiProblems(400, 403, 404, 409, 422)
  update(@UuidParam() id: string, @Body() dto: UserUpdateDto): Promise<UserResponseDto> {
    return this.users.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete a user, with their API tokens and OAuth grants' })
  @ApiNoContentResponse({ description: 'Deleted.' })
  @ApiProblems(400, 403, 404, 409)
  remove(@UuidParam() id: string): Promise<void> {
    return this.users.remove(id);
  }
}

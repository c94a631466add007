import { Get, NotFoundException, Post } from '@nestjs/common';
import { MinRole } from '../auth/auth.decorators';
import { AdminController } from './admin-controller.decorator';

/**
 * Any other path under /admin: after the session check, a 404 page rather than the API's JSON.
 * Registered last, so that every real admin route matches first.
 */
@AdminController('admin')
@MinRole('member')
export class AdminNotFoundController {
  @Get('*path')
  page(): never {
    throw notFound();
  }

  @Post('*path')
  form(): never {
    throw notFound();
  }
}

function notFound(): NotFoundException {
  return new NotFoundException('There is no such admin page.');
}

import { applyDecorators, Controller, UseFilters, UseGuards } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { AdminSessionRoute } from '../auth/auth.decorators';
import { AdminExceptionFilter } from './admin-exception.filter';
import { AdminSessionGuard } from './admin-session.guard';

/**
 * A controller of admin pages: authenticated by the session cookie (not bearer tokens), its form
 * posts checked for CSRF, its errors rendered as pages, and left out of the OpenAPI document.
 * Applied as one decorator so that no admin route can have one part without the others.
 */
export function AdminController(path: string) {
  return applyDecorators(
    Controller(path),
    AdminSessionRoute(),
    UseGuards(AdminSessionGuard),
    UseFilters(AdminExceptionFilter),
    ApiExcludeController(),
  );
}

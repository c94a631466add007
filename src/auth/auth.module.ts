import { Global, Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { AdminUsersService } from './admin-users.service';
import { AuthController } from './auth.controller';
import { AuthGuard } from './auth.guard';
import { LoginThrottle } from './login-throttle';
import { TokenService } from './token.service';

@Global()
@Module({
  controllers: [AuthController],
  providers: [
    AdminUsersService,
    TokenService,
    LoginThrottle,
    { provide: APP_GUARD, useClass: AuthGuard },
  ],
  exports: [AdminUsersService, TokenService],
})
export class AuthModule {}

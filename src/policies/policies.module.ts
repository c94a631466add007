import { Module } from '@nestjs/common';
import { PoliciesController } from './policies.controller';
import { PoliciesService } from './policies.service';
import { ScopePolicies } from './scope-policies';
import { ServerHooksController } from './server-hooks.controller';
import { ServerHooksService } from './server-hooks.service';

@Module({
  controllers: [PoliciesController, ServerHooksController],
  providers: [PoliciesService, ScopePolicies, ServerHooksService],
  exports: [PoliciesService, ScopePolicies, ServerHooksService],
})
export class PoliciesModule {}

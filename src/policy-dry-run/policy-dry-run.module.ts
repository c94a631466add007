import { Module } from '@nestjs/common';
import { McpModule } from '../mcp/mcp.module';
import { PoliciesModule } from '../policies/policies.module';
import { PolicyDryRun } from './policy-dry-run';
import { PolicyDryRunController } from './policy-dry-run.controller';

/** The dry run judges the MCP scopes' own directories, so it sits above the MCP module. */
@Module({
  imports: [PoliciesModule, McpModule],
  controllers: [PolicyDryRunController],
  providers: [PolicyDryRun],
  exports: [PolicyDryRun],
})
export class PolicyDryRunModule {}

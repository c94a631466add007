import { Module } from '@nestjs/common';
import { GatewaysModule } from '../gateways/gateways.module';
import { McpRegistryController } from './mcp-registry.controller';
import { McpRegistryService } from './mcp-registry.service';
import { SubRegistryController } from './sub-registry.controller';
import { SubRegistryService } from './sub-registry.service';

/** The MCP Registry both ways: importing from the configured registries, and serving Portico's own catalogue as one. */
@Module({
  imports: [GatewaysModule],
  controllers: [McpRegistryController, SubRegistryController],
  providers: [McpRegistryService, SubRegistryService],
  exports: [McpRegistryService],
})
export class McpRegistryModule {}

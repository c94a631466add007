import { Module } from '@nestjs/common';
import { ListenHub } from './listen/listen-hub';
import { LISTEN_HUB } from './listen/listen-hub.provider';
import { McpModule } from './mcp.module';
import { RequestStateSealer } from './mrtr/request-state-seal';
import { REQUEST_STATE_SEALER } from './mrtr/request-state-sealer.provider';
import { ModernPromotions } from './search/modern-promotions';

export { LISTEN_HUB, REQUEST_STATE_SEALER };

/**
 * What the modern (2026-07-28) wire adds beside the core: sealed MRTR state, listens, and
 * promotions held by the principal in its scope. Kept apart until the core wires them in.
 */
@Module({
  imports: [McpModule],
  providers: [REQUEST_STATE_SEALER, LISTEN_HUB, ModernPromotions],
  exports: [RequestStateSealer, ListenHub, ModernPromotions],
})
export class ModernPartsModule {}

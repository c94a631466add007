import { Logger } from '@nestjs/common';
import { type Metrics } from './observability/metrics';
import { errorMessage } from './common/error-message';

/**
 * The safety net under every background path: a promise rejection nothing handled is logged,
 * loudly and with its stack, and counted (`portico_unhandled_rejections_total`), instead of
 * ending the process and every session it serves. Each path handles its own failures; one that
 * reaches here is a bug to fix. Uncaught exceptions still end the process: after one, its state
 * is unknown.
 */
export function catchUnhandledRejections(metrics: Metrics): () => void {
  const logger = new Logger('Process');
  const handler = (reason: unknown) => {
    metrics.unhandledRejections.inc();
    logger.error(
      `Unhandled promise rejection (a bug; the process goes on): ${errorMessage(reason)}`,
      reason instanceof Error ? reason.stack : undefined,
    );
  };
  process.on('unhandledRejection', handler);
  return () => process.off('unhandledRejection', handler);
}

import { type DataSource } from 'typeorm';
import { type AuditTrail } from '../audit/audit-trail.service';
import { type ToolNameQuery } from '../tools/tool-name.query';
import { type EventBus } from '../events/event-bus';
import { type Gateway } from '../gateways/gateway.entity';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { type Metrics } from '../observability/metrics';
import { type CatalogueReader } from './catalogue.reader';
import { type SyncApplier } from './sync.applier';
import { SyncService } from './sync.service';

/** A SyncService whose applier answers from `outcomes` in turn: an error to throw, or success. */
function syncService(outcomes: (Error | null)[]) {
  const gateway = { id: 'g', name: 'G', enabled: true, url: 'http://127.0.0.1:9/mcp' };
  const applied: number[] = [];
  const applier = {
    apply: () => {
      applied.push(Date.now());
      const outcome = outcomes.shift();
      if (outcome) return Promise.reject(outcome);
      return Promise.resolve({ report: {}, changed: false });
    },
  };
  const service = new SyncService(
    {
      getRepository: () => ({
        findOneBy: () => Promise.resolve(gateway as Gateway),
        update: () => Promise.resolve(),
      }),
    } as unknown as DataSource,
    { read: () => Promise.resolve({ tools: [] }), timeoutMs: 1000 } as unknown as CatalogueReader,
    applier as unknown as SyncApplier,
    { publish: () => Promise.resolve() } as unknown as EventBus,
    { syncs: { inc: () => undefined } } as unknown as Metrics,
    { record: () => undefined } as unknown as AuditTrail,
    { name: (slug: string, name: string) => `${slug}-${name}` } as unknown as ToolNameQuery,
  );
  return { service, applied };
}

const busy = () =>
  new GatewayException(GatewayErrorCode.SyncInProgress, 'another replica is applying a sync');

describe('SyncService.trigger', () => {
  it('runs again when another replica was applying a sync, rather than dropping the change', async () => {
    const { service, applied } = syncService([busy(), busy(), null]);
    await service.trigger('g', 'list_changed');
    expect(applied).toHaveLength(3);
    expect(applied[2]! - applied[0]!).toBeGreaterThanOrEqual(1400);
  });

  it('does not retry other failures', async () => {
    const { service, applied } = syncService([new Error('boom'), null]);
    await service.trigger('g', 'periodic');
    expect(applied).toHaveLength(1);
  });

  it('stops retrying at shutdown', async () => {
    const { service, applied } = syncService([busy(), busy(), busy(), busy(), busy(), null]);
    const triggered = service.trigger('g', 'periodic');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await service.onModuleDestroy();
    await triggered;
    expect(applied).toHaveLength(1);
  });
});

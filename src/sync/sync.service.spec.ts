import { type DataSource } from 'typeorm';
import { type AuditTrail } from '../audit/audit-trail.service';
import { type ToolNameQuery } from '../virtual-names/tool-name.query';
import { type EventBus } from '../events/event-bus';
import { type Gateway } from '../gateways/gateway.entity';
import { GatewayErrorCode, GatewayException } from '../gateways/gateway.exception';
import { type Metrics } from '../observability/metrics';
import { type UpstreamSettings } from '../config/slices/upstream.settings';
import { type CatalogueReader } from './catalogue.reader';
import { type SyncApplier } from './sync.applier';
import { SyncService } from './sync.service';

/**
 * A SyncService whose applier answers from `outcomes` in turn (an error to throw, or success),
 * each after `applyMs`, and whose changes wait `changeWaitMs` for their sync.
 */
function syncService(outcomes: (Error | null)[], { applyMs = 0, changeWaitMs = 3000 } = {}) {
  const gateway = { id: 'g', name: 'G', enabled: true, url: 'http://127.0.0.1:9/mcp' };
  const applied: number[] = [];
  const applier = {
    apply: async () => {
      applied.push(Date.now());
      const outcome = outcomes.shift();
      await new Promise((resolve) => setTimeout(resolve, applyMs));
      if (outcome) throw outcome;
      return { report: {}, changed: false };
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
    { syncChangeWaitMs: changeWaitMs } as UpstreamSettings,
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

describe('SyncService.syncAfterChange', () => {
  const timed = async (work: Promise<void>) => {
    const start = Date.now();
    await work;
    return Date.now() - start;
  };

  it('answers once the sync has ended, when it ends within sync.changeWaitMs', async () => {
    const { service } = syncService([null], { applyMs: 300, changeWaitMs: 5000 });
    expect(await timed(service.syncAfterChange('g'))).toBeGreaterThanOrEqual(250);
  });

  it('answers after sync.changeWaitMs while a longer sync goes on in the background', async () => {
    const { service, applied } = syncService([null, null], { applyMs: 600, changeWaitMs: 100 });
    expect(await timed(service.syncAfterChange('g'))).toBeLessThan(500);
    // The sync is still the one running: a second change joins the queue behind it.
    expect(applied).toHaveLength(1);
    await service.sync('g');
    expect(applied).toHaveLength(2);
  });
});

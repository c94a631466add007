import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '../../config/load-config';
import { SecretSettings } from '../../config/slices/secrets.settings';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { EventBus } from '../../events/event-bus';
import { InProcessEventBus } from '../../events/in-process-event-bus';
import { Metrics } from '../../observability/metrics';
import { tempDataDir } from '../../../test/support/temp-dir';
import { Directories } from '../directory/directories.service';
import { ListenHub } from '../listen/listen-hub';
import { type ListenEnd } from '../listen/listen-sink';
import { LISTEN_HUB } from '../listen/listen-hub.provider';
import { REQUEST_STATE_SEALER } from '../core/request-state-sealer.provider';
import { RequestStateSealer } from '../core/request-state-seal';

describe('the modern parts as Nest providers', () => {
  it('key the sealer from JWT_SECRET, and start, count and stop the listens with the app', async () => {
    const bus = new InProcessEventBus();
    const directories = { get: async () => ({ version: () => 'v' }) };
    const settings = loadConfig({ DATA_DIR: tempDataDir(), JWT_SECRET: 'j'.repeat(40) });
    @Module({
      providers: [
        { provide: SecretSettings, useValue: settings },
        { provide: UpstreamSettings, useValue: settings },
        { provide: EventBus, useValue: bus },
        { provide: Directories, useValue: directories },
        Metrics,
        REQUEST_STATE_SEALER,
        LISTEN_HUB,
      ],
    })
    class Parts {}
    const app = await NestFactory.createApplicationContext(Parts, { logger: false });
    const binding = {
      subject: 'user:1',
      scope: 'all',
      gatewayId: 'g',
      method: 'tools/call' as const,
      target: 't',
    };
    const state = app
      .get(RequestStateSealer)
      .seal(binding, { kind: 'upstream', requestState: 's' });
    expect(new RequestStateSealer('j'.repeat(40)).unseal(state, binding).ok).toBe(true);

    let ended: ListenEnd | null = null;
    const hub = app.get(ListenHub);
    await hub.open({
      requestId: 1,
      scope: { kind: 'all' },
      owner: { subject: 'user:1', tokenId: null },
      filter: {},
      sink: { write: () => true, end: (reason) => (ended = reason) },
    });
    await bus.publish({ type: 'identity.changed', userIds: ['1'], tokenIds: [], grantIds: [] });
    expect(ended).toBe('identity-changed');
    await hub.open({
      requestId: 2,
      scope: { kind: 'all' },
      owner: { subject: 'user:1', tokenId: null },
      filter: {},
      sink: { write: () => true, end: (reason) => (ended = reason) },
    });
    const listens = async () => (await app.get(Metrics).listens.get()).values[0]?.value;
    expect(await listens()).toBe(1);
    await app.close();
    expect(ended).toBe('shutdown');
    expect(await listens()).toBe(0);
  });
});

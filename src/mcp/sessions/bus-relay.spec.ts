import { Logger } from '@nestjs/common';
import { EventBus, type PorticoEvent } from '../../events/event-bus';
import { busRelay } from './bus-relay';

class FailingBus extends EventBus {
  attempts = 0;

  override async publish(_event: PorticoEvent): Promise<void> {
    this.attempts += 1;
    throw new Error('connection terminated');
  }

  override subscribe(): () => void {
    return () => undefined;
  }
}

describe('busRelay', () => {
  it('logs a failed publish rather than leaving its rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const logger = new Logger('test');
    const warn = jest.spyOn(logger, 'warn').mockImplementation(() => undefined);
    try {
      const bus = new FailingBus();
      const relay = busRelay(bus, 's1', logger);
      relay.toClient('get', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
      relay.fromClient({ jsonrpc: '2.0', id: 'r.1', result: {} });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(bus.attempts).toBe(2);
      expect(unhandled).toEqual([]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('connection terminated'));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

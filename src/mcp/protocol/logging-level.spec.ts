import { passesLogLevel } from './logging-level';

const log = (level: string) => ({ method: 'notifications/message', params: { level, data: 'x' } });

describe('passesLogLevel', () => {
  it('lets everything through until a level is set', () => {
    expect(passesLogLevel(log('debug'), null)).toBe(true);
  });

  it('keeps messages at or above the level', () => {
    expect(passesLogLevel(log('debug'), 'warning')).toBe(false);
    expect(passesLogLevel(log('info'), 'warning')).toBe(false);
    expect(passesLogLevel(log('warning'), 'warning')).toBe(true);
    expect(passesLogLevel(log('emergency'), 'warning')).toBe(true);
  });

  it('never filters other notifications', () => {
    expect(
      passesLogLevel({ method: 'notifications/progress', params: { level: 'debug' } }, 'error'),
    ).toBe(true);
  });
});

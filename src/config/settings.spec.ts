import { tempDataDir } from '../../test/support/temp-dir';
import { loadConfig } from './load-config';
import { SETTINGS_SLICES, sliceOf } from './settings';

describe('the settings slices', () => {
  it('share every setting out, each to exactly one slice', () => {
    const settings = loadConfig({ DATA_DIR: tempDataDir() });
    const listed = [...SETTINGS_SLICES.values()].flat();
    expect([...listed].sort()).toEqual(Object.keys(settings).sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('give a slice its own values and nothing else', () => {
    const settings = loadConfig({ DATA_DIR: tempDataDir(), UPSTREAM_TIMEOUT_MS: '1234' });
    const slice = sliceOf(settings, ['upstreamTimeoutMs', 'stdioCommands']);
    expect(slice).toEqual({ upstreamTimeoutMs: 1234, stdioCommands: [] });
  });
});

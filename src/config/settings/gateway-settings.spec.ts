import { tempDataDir } from '../../../test/support/temp-dir';
import { loadConfig } from '../load-config';
import {
  type GatewayUpstreamSettings,
  normalGatewaySettings,
  PER_GATEWAY_KNOBS,
  tunedUpstream,
} from './gateway-settings';

/** Every number of a nested object by its path. */
function leaves(value: object, prefix = ''): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(value).flatMap(([key, inner]) =>
      typeof inner === 'object' && inner !== null
        ? Object.entries(leaves(inner as object, `${prefix}${key}.`))
        : [[`${prefix}${key}`, inner]],
    ),
  );
}

describe("a gateway's own upstream settings", () => {
  const replica = loadConfig({ DATA_DIR: tempDataDir() });
  const replicaTuned = tunedUpstream(replica, null);

  it('follow the replica where the gateway sets nothing', () => {
    expect(replicaTuned).toEqual({
      timeoutMs: replica.upstreamTimeoutMs,
      callMaxMs: replica.upstreamCallMaxMs,
      resilience: replica.upstreamResilience,
    });
    expect(tunedUpstream(replica, {})).toEqual(replicaTuned);
  });

  it.each(PER_GATEWAY_KNOBS.map((knob) => [knob.key, knob] as const))(
    '%s, set on a gateway, changes how that upstream is called and nothing else',
    (key, knob) => {
      const name = key.slice('upstream.'.length) as keyof GatewayUpstreamSettings;
      const value = knob.default + 1 <= knob.max ? knob.default + 1 : knob.default - 1;
      const tuned = tunedUpstream(replica, { [name]: value });
      const before = leaves(replicaTuned);
      const changed = Object.entries(leaves(tuned)).filter(([path, v]) => before[path] !== v);
      expect(changed).toHaveLength(1);
      expect(changed[0]![1]).toBe(value);
    },
  );

  it('are stored in catalogue order, and none is null', () => {
    expect(normalGatewaySettings({ retries: 1, timeoutMs: 500 })).toEqual({
      timeoutMs: 500,
      retries: 1,
    });
    expect(Object.keys(normalGatewaySettings({ retries: 1, timeoutMs: 500 })!)).toEqual([
      'timeoutMs',
      'retries',
    ]);
    expect(normalGatewaySettings({})).toBeNull();
    expect(normalGatewaySettings(null)).toBeNull();
  });
});

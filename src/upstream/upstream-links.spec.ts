import { type Affinity, type UpstreamConnection } from './upstream-connection';
import { crowdedOut, idleLinks, type Link } from './upstream-links';
import { type UpstreamTarget } from './upstream-target';

const MINUTE = 60_000;

function link(key: string, shared: boolean, lastUsed: number, inFlight = 0): Link {
  return {
    key,
    target: {} as UpstreamTarget,
    affinity: { key: key.split('\0')[2], shared } as Affinity,
    connection: Promise.resolve({} as UpstreamConnection),
    lastUsed,
    inFlight,
  };
}

describe('the upstream client’s links', () => {
  it('crowd out the least recently used idle link of a context past sixteen declarations', () => {
    // The least recently used one is busy.
    const links = Array.from({ length: 16 }, (_, i) =>
      link(`g1\0gateway\0d${i}`, true, 100 + i, i === 0 ? 1 : 0),
    );
    const others = [link('g1\0user:u1\0d0', true, 1), link('g2\0gateway\0d0', true, 1)];
    expect(crowdedOut([...links, ...others], 'g1\0gateway\0')?.key).toBe('g1\0gateway\0d1');
    expect(crowdedOut([...links.slice(1), ...others], 'g1\0gateway\0')).toBeUndefined();
    expect(
      crowdedOut(
        links.map((each) => ({ ...each, inFlight: 1 })),
        'g1\0gateway\0',
      ),
    ).toBe(undefined);
  });

  it('leave a session’s own links to the session, and close shared ones idle for five minutes', () => {
    const now = 10 * MINUTE;
    const links = [
      link('g1\0gateway\0old', true, now - 5 * MINUTE - 1),
      link('g1\0gateway\0busy', true, now - 6 * MINUTE, 1),
      link('g1\0gateway\0fresh', true, now - 5 * MINUTE),
      link('g1\0gateway\0session', false, 0),
    ];
    expect(idleLinks(links, now).map((each) => each.affinity.key)).toEqual(['old']);
  });
});

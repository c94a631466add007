import { resourceTarget } from './oauth-resource';

describe('resourceTarget', () => {
  const base = 'https://portico.example.com';
  const id = '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b';

  it('names /mcp and a server endpoint', () => {
    expect(resourceTarget(`${base}/mcp`, base)).toEqual({ kind: 'all' });
    expect(resourceTarget(`${base}/servers/${id.toUpperCase()}/mcp`, base)).toEqual({
      kind: 'server',
      serverId: id,
    });
  });

  it('follows a PUBLIC_URL with a path', () => {
    expect(resourceTarget(`${base}/portico/mcp`, `${base}/portico`)).toEqual({ kind: 'all' });
    expect(resourceTarget(`${base}/mcp`, `${base}/portico`)).toBeNull();
  });

  it.each([
    'https://evil.example.com/mcp',
    'http://portico.example.com/mcp',
    `${base}/mcp?x=1`,
    `${base}/mcp#frag`,
    `${base}/api/v1/gateways`,
    `${base}/servers/not-a-uuid/mcp`,
    `${base}/servers/${id}/mcp/extra`,
    'not a url',
  ])('refuses %s', (resource) => {
    expect(resourceTarget(resource, base)).toBeNull();
  });
});

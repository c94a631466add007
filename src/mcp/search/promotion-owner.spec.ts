import { type RequestOwner } from '../protocol/mcp-request';
import { ownerKey } from './promotion-owner';

const SERVER = '00000000-0000-4000-8000-000000000001';

describe('ownerKey', () => {
  it('names each kind of owner in its own way', () => {
    expect(ownerKey({ kind: 'session', sessionId: 'abc' })).toBe('session:abc');
    expect(
      ownerKey({ kind: 'principal', scope: { kind: 'server', serverId: SERVER }, subject: 'u:1' }),
    ).toBe(`principal:server:${SERVER}:u:1`);
    expect(ownerKey({ kind: 'principal', scope: { kind: 'all' }, subject: 'u:1' })).toBe(
      'principal:all:u:1',
    );
  });

  it('never gives two owners one key, whatever their subjects hold', () => {
    const owners: RequestOwner[] = [
      { kind: 'session', sessionId: 'abc' },
      { kind: 'session', sessionId: 'principal:all:abc' },
      { kind: 'principal', scope: { kind: 'all' }, subject: 'abc' },
      { kind: 'principal', scope: { kind: 'all' }, subject: `server:${SERVER}:abc` },
      { kind: 'principal', scope: { kind: 'server', serverId: SERVER }, subject: 'abc' },
      { kind: 'principal', scope: { kind: 'server', serverId: SERVER }, subject: 'all:abc' },
      { kind: 'principal', scope: { kind: 'all' }, subject: 'session:abc' },
    ];
    expect(new Set(owners.map(ownerKey)).size).toBe(owners.length);
  });

  it('fits its column for the longest session id, scope and subject', () => {
    const longest: RequestOwner[] = [
      { kind: 'session', sessionId: 's'.repeat(64) },
      { kind: 'principal', scope: { kind: 'server', serverId: SERVER }, subject: 'u'.repeat(128) },
    ];
    for (const owner of longest) expect(ownerKey(owner).length).toBeLessThanOrEqual(256);
  });
});

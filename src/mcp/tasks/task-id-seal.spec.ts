import { MAX_UPSTREAM_TASK_ID_CHARS, TaskIdSealer, TaskIdTooLong, taskRef } from './task-id-seal';

describe('TaskIdSealer', () => {
  const sealer = new TaskIdSealer('a-jwt-secret-of-enough-length-for-tests');
  const alice = { subject: 'user:alice', scope: 'server:s1' };
  const route = { gatewayId: 'gw-1', taskId: 'upstream-task-42', tool: 'jobs__slow_compute' };

  it('opens, on any replica with the same secret, to the upstream, its own id and the tool', () => {
    const id = sealer.seal(alice, route);
    const replica = new TaskIdSealer('a-jwt-secret-of-enough-length-for-tests');
    expect(replica.open(id, alice)).toEqual(route);
  });

  it('never shows the upstream id, and seals the same task differently each time', () => {
    const first = sealer.seal(alice, route);
    expect(first).not.toContain(route.taskId);
    expect(Buffer.from(first.slice(4), 'base64url').toString('latin1')).not.toContain('upstream');
    expect(sealer.seal(alice, route)).not.toBe(first);
  });

  it("opens to nothing for another principal, another endpoint, or another secret's id", () => {
    const id = sealer.seal(alice, route);
    expect(sealer.open(id, { ...alice, subject: 'user:bob' })).toBeNull();
    expect(sealer.open(id, { ...alice, scope: 'server:s2' })).toBeNull();
    expect(sealer.open(id, { ...alice, scope: 'all' })).toBeNull();
    expect(new TaskIdSealer('another-secret-of-enough-length-for-it').open(id, alice)).toBeNull();
  });

  it('refuses every altered byte, so an id cannot be pointed at another upstream or task', () => {
    const id = sealer.seal(alice, route);
    const bytes = Buffer.from(id.slice(4), 'base64url');
    for (let index = 0; index < bytes.length; index++) {
      const altered = Buffer.from(bytes);
      altered[index] = (altered[index] as number) ^ 0x01;
      expect(sealer.open(`pt1.${altered.toString('base64url')}`, alice)).toBeNull();
    }
    // A sealed id for another gateway is a different id, not an edit of this one.
    const other = sealer.seal(alice, { ...route, gatewayId: 'gw-2' });
    expect(sealer.open(other, alice)?.gatewayId).toBe('gw-2');
  });

  it('opens to nothing for made-up, truncated, oversized and non-string ids', () => {
    const id = sealer.seal(alice, route);
    for (const made of [
      'tasks-conformance-nonexistent-12345',
      'pt1.',
      'pt1.AAAA',
      id.slice(0, -3),
      `${id}.x`,
      `pt2${id.slice(3)}`,
      `pt1.${'A'.repeat(100_000)}`,
      42,
      null,
      { taskId: id },
    ])
      expect(sealer.open(made, alice)).toBeNull();
  });

  it("refuses to wrap an upstream id longer than it carries: the upstream's fault", () => {
    const long = 'x'.repeat(MAX_UPSTREAM_TASK_ID_CHARS + 1);
    expect(() => sealer.seal(alice, { ...route, taskId: long })).toThrow(TaskIdTooLong);
    const longest = 'é'.repeat(MAX_UPSTREAM_TASK_ID_CHARS);
    expect(sealer.open(sealer.seal(alice, { ...route, taskId: longest }), alice)?.taskId).toBe(
      longest,
    );
  });

  it('gives the audit trail one reference per task, without its id', () => {
    const ref = taskRef(route);
    expect(ref).toBe(taskRef({ gatewayId: 'gw-1', taskId: 'upstream-task-42' }));
    expect(ref).not.toBe(taskRef({ gatewayId: 'gw-2', taskId: 'upstream-task-42' }));
    expect(ref).not.toContain('upstream');
    expect(ref).toHaveLength(22);
  });
});

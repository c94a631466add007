import { type McpCall } from '../mcp/protocol/mcp-call';
import { type ApprovalPolicy, type ApprovalRecord } from './approval-record';
import { type RememberedApprovals } from './remembered-approvals';
import { ToolApprovals } from './tool-approvals';

const TOOL = { id: 'tool-1', name: 'db-drop_table', gatewaySlug: 'db' };
const POLICY: ApprovalPolicy = {
  policy: { id: 'policy-1', name: 'ask' },
  message: 'Deletes data.',
  rememberSeconds: 7200,
};

function setUp(ask: McpCall['ask'], rememberedUntil: number | null = null) {
  const remembered = {
    validUntil: jest.fn(() => rememberedUntil),
    remember: jest.fn(() => Promise.resolve()),
  };
  const call = {
    era: 'legacy',
    principal: { subject: 'user:1', name: 'alice' },
    clientCapabilities: { elicitation: {} },
    ask: jest.fn(ask),
  } as unknown as McpCall;
  const notes: ApprovalRecord[] = [];
  const approvals = new ToolApprovals(remembered as unknown as RememberedApprovals);
  const obtain = (args: Record<string, unknown> = {}) =>
    approvals.obtain(call, TOOL, args, POLICY, (record) => notes.push(record));
  return { call, remembered, notes, obtain };
}

describe('ToolApprovals', () => {
  it('asks with the tool, the policy, its message and the arguments, and offers to remember', async () => {
    const { call, notes, obtain } = setUp(() => Promise.resolve({ action: 'accept' }));
    await obtain({ table: 'users' });
    const asked = (call.ask as jest.Mock).mock.calls[0][0];
    expect(asked.method).toBe('elicitation/create');
    expect(asked.params.message).toContain("'db-drop_table' (gateway 'db')");
    expect(asked.params.message).toContain('Deletes data.');
    expect(asked.params.message).toContain('Arguments: {"table":"users"}');
    expect(asked.params.requestedSchema.properties.remember.title).toBe(
      'Remember my yes for 2 hours',
    );
    expect(notes).toEqual([expect.objectContaining({ outcome: 'approved', by: 'alice' })]);
    expect(notes[0]!.shown).not.toContain('users');
  });

  it('cuts long arguments short in the question', async () => {
    const { call, obtain } = setUp(() => Promise.resolve({ action: 'accept' }));
    await obtain({ text: 'x'.repeat(5000) });
    const message = (call.ask as jest.Mock).mock.calls[0][0].params.message as string;
    expect(message.length).toBeLessThan(1300);
    expect(message).toContain('characters in all');
  });

  it('remembers a yes when asked to, and asks no one while it holds', async () => {
    const { remembered, notes, obtain } = setUp(() =>
      Promise.resolve({ action: 'accept', content: { remember: true } }),
    );
    await obtain();
    expect(remembered.remember).toHaveBeenCalledWith(
      expect.objectContaining({ subject: 'user:1', toolId: 'tool-1', policy: POLICY.policy }),
    );
    expect(notes[0]!.rememberedUntil).toBeDefined();

    const until = Date.now() + 60_000;
    const again = setUp(() => Promise.reject(new Error('not asked')), until);
    await again.obtain();
    expect(again.call.ask).not.toHaveBeenCalled();
    expect(again.notes[0]).toMatchObject({
      outcome: 'remembered',
      rememberedUntil: new Date(until).toISOString(),
    });
  });

  it('refuses on a no, a dismissal and no answer at all, noting each', async () => {
    for (const [answer, outcome] of [
      [Promise.resolve({ action: 'decline' }), 'declined'],
      [Promise.resolve({ action: 'cancel' }), 'cancelled'],
      [Promise.reject(new Error('The client did not answer in time')), 'unanswered'],
    ] as const) {
      const { notes, obtain } = setUp(() => answer);
      await expect(obtain()).rejects.toThrow();
      expect(notes.map((note) => note.outcome)).toEqual([outcome]);
    }
  });

  it('does not take a remember answer that is not a plain yes', async () => {
    const { remembered, obtain } = setUp(() =>
      Promise.resolve({ action: 'accept', content: { remember: 'yes' } }),
    );
    await obtain();
    expect(remembered.remember).not.toHaveBeenCalled();
  });
});

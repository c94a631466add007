import { type ApprovalPolicy, type ApprovalRecord } from '../../approvals/approval-record';
import { type RememberedApprovals } from '../../approvals/remembered-approvals';
import { type SpentApprovals } from '../../approvals/spent-approvals';
import { type McpRequest } from '../protocol/mcp-request';
import { APPROVAL_INPUT, ApprovalStep, NeedsInput } from './approval-step';
import { Continuation, type Continued } from './continuation';
import { RequestStateSealer } from './request-state-seal';

const TOOL = { id: 'tool-1', name: 'db-drop_table', gatewaySlug: 'db' };
const POLICY: ApprovalPolicy = {
  policy: { id: 'policy-1', name: 'ask' },
  revision: 'r1',
  message: 'Deletes data.',
  rememberSeconds: 7200,
};
const TARGET = { gatewayId: 'g1', method: 'tools/call' as const, target: 'drop_table' };

function setUp(
  rememberedUntil: number | null = null,
  capabilities = { elicitation: {} },
  playgroundBy?: string,
) {
  const remembered = {
    validUntil: jest.fn(() => rememberedUntil),
    remember: jest.fn(() => Promise.resolve()),
  };
  const request = {
    principal: { subject: 'user:1', name: 'alice' },
    scope: { kind: 'all' },
    meta: { clientCapabilities: capabilities },
    ...(playgroundBy === undefined ? {} : { playgroundBy }),
  } as unknown as McpRequest;
  // The states used up, as the database keeps them for every replica.
  const used = new Set<string>();
  const spent = {
    spend: (id: string) => Promise.resolve(!used.has(id) && Boolean(used.add(id))),
  } as unknown as SpentApprovals;
  const continuation = new Continuation(new RequestStateSealer('s'.repeat(40)), spent);
  const notes: ApprovalRecord[] = [];
  const step = new ApprovalStep(remembered as unknown as RememberedApprovals);
  const obtain = (continued: Continued, args: Record<string, unknown> = {}, version = 'v1') =>
    step.obtain(request, TOOL, args, POLICY, version, continued, (record) => notes.push(record));
  const open = (resume: McpRequest['resume'] = null) =>
    continuation.open({ ...request, resume }, TARGET);
  return { remembered, notes, obtain, open };
}

/** The round a first call is answered with, and a retry of it carrying `answer`. */
async function askedThenAnswered(
  { obtain, open }: ReturnType<typeof setUp>,
  answer: unknown,
  args: Record<string, unknown> = {},
): Promise<{ round: Record<string, unknown>; retried: Promise<boolean> }> {
  const asking = await obtain(open(), args).catch((error: unknown) => error);
  if (!(asking instanceof NeedsInput)) throw new Error('no question was asked');
  const round = asking.result as { requestState: string };
  const retried = obtain(
    open({ requestState: round.requestState, inputResponses: { [APPROVAL_INPUT]: answer } }),
    args,
  );
  return { round: asking.result, retried };
}

describe('ApprovalStep', () => {
  it('asks in a round with the tool, the policy, its message and the arguments, and offers to remember', async () => {
    const setup = setUp();
    const { round, retried } = await askedThenAnswered(
      setup,
      { action: 'accept' },
      {
        table: 'users',
      },
    );
    const question = (round.inputRequests as Record<string, { method: string; params: never }>)[
      APPROVAL_INPUT
    ]!;
    const params = question.params as {
      message: string;
      mode: string;
      requestedSchema: { properties: { remember: { title: string } } };
    };
    expect(question.method).toBe('elicitation/create');
    expect(params.mode).toBe('form');
    expect(params.message).toContain("'db-drop_table' (gateway 'db')");
    expect(params.message).toContain('Deletes data.');
    expect(params.message).toContain('Arguments: {"table":"users"}');
    expect(params.requestedSchema.properties.remember.title).toBe('Remember my yes for 2 hours');
    await expect(retried).resolves.toBe(true);
    // The question is on record as it is asked, the answer as it comes.
    expect(setup.notes).toEqual([
      expect.objectContaining({ outcome: 'asked', by: 'alice' }),
      expect.objectContaining({ outcome: 'approved', by: 'alice' }),
    ]);
    for (const note of setup.notes) expect(note.shown).not.toContain('users');
  });

  it('cuts long arguments short in the question', async () => {
    const { round } = await askedThenAnswered(
      setUp(),
      { action: 'accept' },
      {
        text: 'x'.repeat(5000),
      },
    );
    const message = JSON.stringify(round.inputRequests);
    expect(message.length).toBeLessThan(1600);
    expect(message).toContain('characters in all');
  });

  it('remembers a yes when asked to, and asks no one while it holds', async () => {
    const setup = setUp();
    const { retried } = await askedThenAnswered(setup, {
      action: 'accept',
      content: { remember: true },
    });
    await retried;
    expect(setup.remembered.remember).toHaveBeenCalledWith(
      expect.objectContaining({ subject: 'user:1', toolId: 'tool-1', policy: POLICY.policy }),
    );
    expect(setup.notes[1]!.rememberedUntil).toBeDefined();

    const until = Date.now() + 60_000;
    const again = setUp(until);
    await expect(again.obtain(again.open())).resolves.toBe(false);
    expect(again.notes[0]).toMatchObject({
      outcome: 'remembered',
      rememberedUntil: new Date(until).toISOString(),
    });
  });

  it("lets an admin playground's yes as someone else through once, in the admin's name, never remembered", async () => {
    const setup = setUp(null, { elicitation: {} }, 'root');
    const { retried } = await askedThenAnswered(setup, {
      action: 'accept',
      content: { remember: true },
    });
    await expect(retried).resolves.toBe(true);
    expect(setup.remembered.remember).not.toHaveBeenCalled();
    expect(setup.notes[1]).toMatchObject({ outcome: 'approved', by: 'root' });
    expect(setup.notes[1]!.rememberedUntil).toBeUndefined();
  });

  it('refuses on a no, a dismissal and no answer at all, noting each', async () => {
    for (const [answer, outcome] of [
      [{ action: 'decline' }, 'declined'],
      [{ action: 'cancel' }, 'cancelled'],
      [undefined, 'unanswered'],
    ] as const) {
      const setup = setUp();
      const { retried } = await askedThenAnswered(setup, answer);
      await expect(retried).rejects.toMatchObject({ code: -32011 });
      expect(setup.notes.map((note) => note.outcome)).toEqual(['asked', outcome]);
    }
  });

  it('does not take a remember answer that is not a plain yes', async () => {
    const setup = setUp();
    const { retried } = await askedThenAnswered(setup, {
      action: 'accept',
      content: { remember: 'yes' },
    });
    await retried;
    expect(setup.remembered.remember).not.toHaveBeenCalled();
  });

  it('asks again when the policies changed since the question, and carries a yes through the call', async () => {
    const setup = setUp();
    const asking = (await setup
      .obtain(setup.open())
      .catch((error: unknown) => error)) as NeedsInput;
    const state = (asking.result as { requestState: string }).requestState;
    const answered = setup.open({
      requestState: state,
      inputResponses: { [APPROVAL_INPUT]: { action: 'accept' } },
    });
    await expect(setup.obtain(answered, {}, 'v2')).rejects.toBeInstanceOf(NeedsInput);
    const yes = setup.open({
      requestState: state,
      inputResponses: { [APPROVAL_INPUT]: { action: 'accept' } },
    });
    await setup.obtain(yes);
    // The upstream's own round after the yes carries it: the next retry asks nobody.
    const upstreamRound = yes.answer({
      resultType: 'input_required',
      inputRequests: {},
      requestState: 'inner',
    }) as { requestState: string };
    const next = setup.open({ requestState: upstreamRound.requestState, inputResponses: {} });
    await expect(setup.obtain(next)).resolves.toBe(false);
    // Noted as the yes it is, with when it was given.
    expect(setup.notes.map((note) => note.outcome)).toEqual([
      'asked',
      'asked',
      'approved',
      'approved',
    ]);
    expect(setup.notes[3]!.at).toBe(setup.notes[2]!.at);
  });

  it('lets a yes through once: a retry that brings its state again is refused, whichever round it is', async () => {
    const setup = setUp();
    const asking = (await setup
      .obtain(setup.open())
      .catch((error: unknown) => error)) as NeedsInput;
    const answer = {
      requestState: (asking.result as { requestState: string }).requestState,
      inputResponses: { [APPROVAL_INPUT]: { action: 'accept' } },
    };
    const yes = setup.open(answer);
    await expect(setup.obtain(yes)).resolves.toBe(true);
    // Judged again in the same request (the policies changed meanwhile): still this one use.
    await expect(setup.obtain(yes)).resolves.toBe(false);
    await expect(setup.obtain(setup.open(answer))).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('has let its call of'),
      data: { approval: 'replayed' },
    });
    // The upstream's round after the yes carries it; its state, too, lets one retry through.
    const upstreamRound = yes.answer({
      resultType: 'input_required',
      inputRequests: {},
      requestState: 'inner',
    }) as { requestState: string };
    const next = { requestState: upstreamRound.requestState, inputResponses: {} };
    await expect(setup.obtain(setup.open(next))).resolves.toBe(false);
    await expect(setup.obtain(setup.open(next))).rejects.toMatchObject({ code: -32602 });
    expect(setup.notes.map((note) => note.outcome)).toEqual([
      'asked',
      'approved',
      'approved',
      'replayed',
      'approved',
      'replayed',
    ]);
  });

  it('does not let a yes through when its use cannot be recorded', async () => {
    const setup = setUp();
    const asking = (await setup
      .obtain(setup.open())
      .catch((error: unknown) => error)) as NeedsInput;
    const yes = setup.open({
      requestState: (asking.result as { requestState: string }).requestState,
      inputResponses: { [APPROVAL_INPUT]: { action: 'accept' } },
    });
    yes.spend = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    await expect(setup.obtain(yes)).rejects.toMatchObject({
      code: -32603,
      message: expect.stringContaining(
        'could not be recorded as used (the database did not answer)',
      ),
    });
    // Where the database is, the client is not told.
    await expect(setup.obtain(yes)).rejects.not.toMatchObject({
      message: expect.stringContaining('127.0.0.1'),
    });
    expect(setup.notes.map((note) => note.outcome)).toEqual(['asked']);
  });

  it('refuses, naming the missing capability, a client that cannot be asked', async () => {
    const setup = setUp(null, {} as { elicitation: object });
    await expect(setup.obtain(setup.open())).rejects.toMatchObject({
      code: -32021,
      data: { requiredCapabilities: { elicitation: {} } },
    });
    expect(setup.notes.map((note) => note.outcome)).toEqual(['unavailable']);
  });
});

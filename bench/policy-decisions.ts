import { type Principal } from '../src/auth/principal';
import { type PolicyDefinition, PolicySet } from '../src/policies/policy-set';
import { policyToolOf, type PolicyTool } from '../src/policies/policy-tool';

// `node -r ts-node/register/transpile-only bench/policy-decisions.ts`: what the policy check
// costs one tools/call, with 20 policies. A determinate decision (the tool's listing decided it)
// is a key and a map lookup; a call-dependent one evaluates its policies with the arguments; a
// first listing evaluates every policy without them. Figures are per decision, on this machine.

const ROUNDS = Number(process.env.ROUNDS ?? 200_000);

const principal: Principal = {
  subject: 'user:ann',
  name: 'ann',
  userId: 'ann',
  role: 'member',
  teamIds: ['t-1', 't-2'],
  serverIds: null,
  audience: null,
  tokenId: null,
  source: 'api-token',
};

const tool = (name: string): PolicyTool =>
  policyToolOf(
    {
      id: `id-${name}`,
      gatewaySlug: 'bench',
      originalName: name,
      title: null,
      annotations: { destructiveHint: name.endsWith('write') },
      contentHash: 'hash',
      pinnedHash: null,
    },
    name,
    name,
  );

function policies(dependent: boolean): PolicyDefinition[] {
  return Array.from({ length: 20 }, (_, index) => ({
    id: `p${index}`,
    name: `policy-${String(index).padStart(2, '0')}`,
    expression: dependent
      ? `tool.name == "bench-write" && args.path.startsWith("/p${index}/")`
      : `tool.name == "bench-${index}" && ("team-${index}" in principal.teams || principal.role == "admin")`,
    effect: index % 3 === 0 ? 'deny' : 'allow',
    priority: index,
    approval: null,
  }));
}

function perDecision(run: () => unknown): number {
  for (let i = 0; i < 10_000; i++) run();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) run();
  return Number(process.hrtime.bigint() - start) / ROUNDS / 1000;
}

async function main(): Promise<void> {
  const teams = new Map([
    ['t-1', 'team-1'],
    ['t-2', 'team-2'],
  ]);
  const now = new Date();
  const determinate = await PolicySet.compile(policies(false), teams);
  const other = tool('bench-read');
  const determinateUs = perDecision(() => determinate.decide(principal, other, {}, now));

  const dependent = await PolicySet.compile(policies(true), teams);
  const write = tool('bench-write');
  const args = { path: '/tmp/file', content: 'x'.repeat(1000) };
  const dependentUs = perDecision(() => dependent.decide(principal, write, args, now));

  let fresh = 0;
  const listingUs = perDecision(() =>
    determinate.listed(principal, { ...other, id: `fresh-${(fresh += 1)}` }, 'k'),
  );

  console.log(`20 policies, ${ROUNDS} rounds each:`);
  console.log(`  determinate call (listing decided it):   ${determinateUs.toFixed(2)} µs`);
  console.log(`  call-dependent call (20 evaluations):    ${dependentUs.toFixed(2)} µs`);
  console.log(`  first listing of a tool (20 evaluations): ${listingUs.toFixed(2)} µs`);
}

void main();

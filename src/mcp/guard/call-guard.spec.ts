import { type Principal } from '../../auth/principal';
import { VIEW_MEMORY, VIEW_TOOLS } from '../../policies/policy-set';
import { type ScopePolicies } from '../../policies/scope-policies';
import { type RateLimitMetrics } from '../../rate-limits/rate-limit-metrics';
import { type RateLimiter } from '../../rate-limits/rate-limiter.service';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type ToolDirectory } from '../directory/tool-directory';
import { CallGuard } from './call-guard';

/**
 * A scope of `size` tools under a policy that keys every principal apart (as one reading
 * `principal.token` does); `built` counts the views the directory had to build.
 */
function scope(size: number) {
  const built = { count: 0 };
  const tools = {
    tools: new Array<unknown>(size),
    visibleTo: () => {
      built.count += 1;
      return { tools: [] } as unknown as ToolDirectory;
    },
  } as unknown as ToolDirectory;
  const policy = { empty: false, keyOf: (principal: Principal) => principal.subject };
  const directory = { tools, guard: { policy } } as unknown as ScopeDirectory;
  return { directory, built };
}

const principal = (i: number) => ({ subject: `token-${i}` }) as Principal;

describe('CallGuard.visible', () => {
  const guard = new CallGuard({} as RateLimiter, {} as RateLimitMetrics, {} as ScopePolicies);

  it('keeps one view per principal key, for at most VIEW_MEMORY keys', () => {
    const { directory, built } = scope(10);
    const first = guard.visible(directory, principal(0));
    expect(guard.visible(directory, principal(0))).toBe(first);
    for (let i = 1; i < VIEW_MEMORY; i++) guard.visible(directory, principal(i));
    expect(built.count).toBe(VIEW_MEMORY);
    guard.visible(directory, principal(0));
    expect(built.count).toBe(VIEW_MEMORY);
    // One key more, and the memory starts over: the first key's view is built again.
    guard.visible(directory, principal(VIEW_MEMORY));
    guard.visible(directory, principal(0));
    expect(built.count).toBe(VIEW_MEMORY + 2);
  });

  it('keeps views of a large scope for at most VIEW_TOOLS tools, all keys together', () => {
    const size = VIEW_TOOLS / 4;
    const { directory, built } = scope(size);
    for (let i = 0; i < 4; i++) guard.visible(directory, principal(i));
    for (let i = 0; i < 4; i++) guard.visible(directory, principal(i));
    expect(built.count).toBe(4);
    // A fifth principal's view would hold more than VIEW_TOOLS tools in all: the others go.
    guard.visible(directory, principal(4));
    guard.visible(directory, principal(0));
    expect(built.count).toBe(6);
  });
});

import { type TaskAccess } from '../../src/mcp/tasks/task-access';
import { type TaskRoute } from '../../src/mcp/tasks/task-id-seal';

/**
 * For unit tests: a scope that serves every tool of these gateways to anyone, with `hooks` in
 * place of the server's `after` hooks (none by default).
 */
export function servingGateways(
  gatewayIds: readonly string[],
  hooks: (result: unknown) => unknown = (result) => result,
): TaskAccess {
  return {
    tool: (_directory: unknown, _principal: unknown, route: TaskRoute) =>
      Promise.resolve(
        gatewayIds.includes(route.gatewayId)
          ? { id: 'tool-1', gatewayId: route.gatewayId, gatewaySlug: `slug-${route.gatewayId}` }
          : null,
      ),
    delivered: (...args: unknown[]) => Promise.resolve(hooks(args[4])),
  } as unknown as TaskAccess;
}

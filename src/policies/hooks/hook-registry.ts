import { type HookConfig } from './hook-config';
import { SECRET_REDACTION, secretRedactionHook } from './secret-redaction.hook';
import { SIZE_LIMIT, sizeLimitHook } from './size-limit.hook';
import { HookConfigError, type ToolCallHook, type ToolCallHookFactory } from './tool-call-hook';

/** The built-in hooks, by the name a server's configuration uses. */
export const HOOKS: ReadonlyMap<string, ToolCallHookFactory> = new Map([
  [SECRET_REDACTION, secretRedactionHook],
  [SIZE_LIMIT, sizeLimitHook],
]);

export const HOOK_NAMES = [...HOOKS.keys()];

/** The hooks of a server's configuration, in order; throws HookConfigError on a bad entry. */
export function buildHooks(configs: readonly HookConfig[]): ToolCallHook[] {
  return configs.map((entry, index) => {
    const factory = HOOKS.get(entry.name);
    if (!factory)
      throw new HookConfigError(
        `Hook ${index + 1}: there is no hook '${entry.name}' (known: ${HOOK_NAMES.join(', ')}).`,
      );
    return factory(entry.config ?? {});
  });
}

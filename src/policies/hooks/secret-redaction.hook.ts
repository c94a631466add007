import { type CallToolResult } from '@modelcontextprotocol/server';
import { HookConfigError, type ToolCallHook } from './tool-call-hook';
import { rewriteJson } from '../../common/json-value';
import { redactKnownSecrets } from './secret-patterns';

export const SECRET_REDACTION = 'secret-redaction';

/** Every string in a JSON value, redacted; the shape is kept. */
function redactValue(value: unknown): unknown {
  return rewriteJson(value, (member) =>
    typeof member === 'string' ? redactKnownSecrets(member).text : member,
  );
}

/**
 * Cuts credentials of common formats (AWS, GitHub, OpenAI, Anthropic, Slack, Google, Stripe keys,
 * private keys, JWTs) out of tool results: text content, embedded resources' text, structured
 * content, and every string of the result's other members (its `_meta`; a task's status message
 * and error, which an upstream writes as freely as a result). Binary content (images, audio,
 * blobs) passes as it is.
 */
export function secretRedactionHook(config: Record<string, unknown>): ToolCallHook {
  if (Object.keys(config).length > 0)
    throw new HookConfigError(`Hook '${SECRET_REDACTION}' takes no settings.`);
  return {
    name: SECRET_REDACTION,
    after: (_context, result) => {
      // An upstream may send a result without content; it is passed on as such, never unchecked.
      const content = (Array.isArray(result.content) ? result.content : []).map((block) => {
        if (block.type === 'text') return { ...block, text: redactKnownSecrets(block.text).text };
        if (block.type === 'resource' && 'text' in block.resource)
          return {
            ...block,
            resource: { ...block.resource, text: redactKnownSecrets(block.resource.text).text },
          };
        return block;
      });
      const { content: _content, ...members } = result;
      return {
        ...(redactValue(members) as CallToolResult),
        ...(Array.isArray(result.content) ? { content } : {}),
      };
    },
  };
}

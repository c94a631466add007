import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { fromUpstream } from '../mcp-errors';
import { type SessionRuntime } from '../session/session-runtime';

/** The gateway a request is forwarded to, as the client's error messages name it. */
export interface UpstreamRef {
  gatewayId: string;
  gatewaySlug: string;
}

/**
 * Runs `work` on the session's own connection to the gateway; what the upstream exchange threw
 * becomes the JSON-RPC error the client gets.
 */
export async function onSessionUpstream<T>(
  runtime: SessionRuntime,
  ref: UpstreamRef,
  timeoutMs: number,
  work: (connection: UpstreamConnection) => Promise<T>,
): Promise<T> {
  try {
    return await runtime.upstreams.with(ref.gatewayId, work);
  } catch (error) {
    if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
      throw fromUpstream(error, ref.gatewaySlug, timeoutMs);
    throw error;
  }
}

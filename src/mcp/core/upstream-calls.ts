import { type Affinity, type UpstreamClient } from '../../upstream/upstream-client';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { type UpstreamCalls } from '../protocol/mcp-call';
import { fromUpstream } from '../protocol/mcp-errors';

/**
 * The upstream calls of one request, on the connections of its affinity: what the upstream
 * exchange threw comes out as the client's JSON-RPC error, naming the gateway.
 */
export function upstreamCalls(client: UpstreamClient, affinity: Affinity): UpstreamCalls {
  return {
    call: async (ref, work) => {
      try {
        return await client.call(ref.gatewayId, affinity, work);
      } catch (error) {
        if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
          throw fromUpstream(error, ref.gatewaySlug, client.timeoutMs);
        throw error;
      }
    },
  };
}

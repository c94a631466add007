import { Injectable } from '@nestjs/common';
import { type Result } from '@modelcontextprotocol/server';
import { type Affinity, UpstreamClient } from '../../upstream/upstream-client';
import { type UpstreamConnection } from '../../upstream/upstream-connection';
import { UpstreamFailure, UpstreamRpcError } from '../../upstream/upstream-error';
import { fromUpstream } from '../protocol/mcp-errors';
import { type McpRequest, type UpstreamRef } from '../protocol/mcp-request';

/**
 * The core's way upstream: a request's work on the connections of its affinity, through the
 * upstream client. What the upstream exchange threw comes out as the client's JSON-RPC error,
 * naming the gateway.
 */
@Injectable()
export class UpstreamCalls {
  constructor(private readonly client: UpstreamClient) {}

  call<T>(
    affinity: Affinity,
    ref: UpstreamRef,
    work: (connection: UpstreamConnection) => Promise<T>,
  ): Promise<T> {
    return this.mapped(ref, () => this.client.call(ref.gatewayId, affinity, work));
  }

  /**
   * The request's one upstream request of a method that may take input rounds, with what the
   * request says of its client; a round is its result.
   */
  request<T extends Result>(
    request: McpRequest,
    ref: UpstreamRef,
    method: string,
    params: Record<string, unknown>,
  ): Promise<T> {
    const { meta, signal, sink } = request;
    return this.mapped(
      ref,
      () =>
        this.client.request(ref.gatewayId, request.affinity, method, params, {
          signal,
          sink,
          caller: { capabilities: meta.clientCapabilities, logLevel: meta.logLevel },
        }) as Promise<T>,
    );
  }

  private async mapped<T>(ref: UpstreamRef, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof UpstreamFailure || error instanceof UpstreamRpcError)
        throw fromUpstream(error, ref.gatewaySlug, this.client.timeoutMs);
      throw error;
    }
  }
}

import { Injectable } from '@nestjs/common';
import { type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { AppConfig } from '../config/app-config';
import { type GatewayCredentials, openCredentials } from '../gateways/gateway-credentials';
import { type Gateway } from '../gateways/gateway.entity';
import { UpstreamError } from './upstream-error';
import { UpstreamSession } from './upstream-session';

/** What the client needs of a gateway: where it is, how to speak to it, its sealed credentials. */
export type UpstreamGateway = Pick<Gateway, 'url' | 'transport' | 'authType' | 'authSecret'>;

/** Identifies how the upstream is reached; when it changes, what was read before is stale. */
export function upstreamFingerprint(gateway: UpstreamGateway): string {
  return JSON.stringify([gateway.url, gateway.transport, gateway.authType, gateway.authSecret]);
}

export interface UpstreamOpenOptions {
  signal?: AbortSignal;
  onToolsChanged?: () => void;
}

/** Opens SDK client sessions to gateways, with their decrypted credentials and the timeout. */
@Injectable()
export class UpstreamClient {
  constructor(private readonly config: AppConfig) {}

  get timeoutMs(): number {
    return this.config.upstreamTimeoutMs;
  }

  async open(
    gateway: UpstreamGateway,
    options: UpstreamOpenOptions = {},
  ): Promise<UpstreamSession> {
    return UpstreamSession.open(
      { url: gateway.url, transport: gateway.transport, credentials: this.credentials(gateway) },
      { timeoutMs: this.timeoutMs, ...options },
    );
  }

  /** Every tool of the upstream, over a short-lived session. */
  async listTools(gateway: UpstreamGateway, signal?: AbortSignal): Promise<unknown[]> {
    const session = await this.open(gateway, { signal });
    try {
      return await session.listTools();
    } finally {
      await session.close();
    }
  }

  async callTool(
    gateway: UpstreamGateway,
    name: string,
    args: Record<string, unknown>,
  ): Promise<CallToolResult> {
    const session = await this.open(gateway);
    try {
      return await session.callTool(name, args);
    } finally {
      await session.close();
    }
  }

  private credentials(gateway: UpstreamGateway): GatewayCredentials {
    try {
      return openCredentials(this.config.encryptionKey, gateway);
    } catch {
      throw new UpstreamError(
        'the stored upstream credentials cannot be decrypted; was ENCRYPTION_KEY changed?',
      );
    }
  }
}

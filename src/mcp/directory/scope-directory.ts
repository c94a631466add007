import { createHash } from 'node:crypto';
import { type Implementation } from '@modelcontextprotocol/server';
import { type UpstreamList } from '../../events/event-bus';
import { type McpScope } from '../protocol/mcp-scope';
import { type PromptDirectory } from './prompt-directory';
import { type ResourceDirectory } from './resource-directory';
import { type PolicySet } from '../../policies/policy-set';
import { type ToolCallHook } from '../../policies/hooks/tool-call-hook';
import { type LimitRule } from '../../rate-limits/rate-limiter.service';
import { type DirectoryServer } from './directory-tool';
import { type ToolDirectory } from './tool-directory';

/** What stands between a client and a call in one scope: policies, rate limits, hooks. */
export interface ScopeGuard {
  /** The scope's policies, compiled when the directory was built. */
  policy: PolicySet;
  /** The rate limits that hold in this scope (its server's and the global ones). */
  limits: readonly LimitRule[];
  /** The server's hooks, in order. */
  hooks: readonly ToolCallHook[];
}

/** Portico's identity where no virtual server names it: its own endpoint, or a server that is gone. */
export const PORTICO: Implementation = Object.freeze({ name: 'Portico', version: '1.0.0' });

/**
 * Everything one scope serves, built from the database after every filter (enabled, of an
 * enabled gateway, a member of the server). Replaced, never changed, when anything changes, so a
 * reader always sees one consistent version.
 */
export class ScopeDirectory {
  /** The version of the per-tool UI resources, which are listed with the resources. */
  private readonly uiVersion: string;
  /** Who answers in this scope, in both eras: Portico, named after the virtual server. */
  readonly serverInfo: Implementation;

  constructor(
    readonly scope: McpScope,
    readonly server: DirectoryServer | null,
    readonly tools: ToolDirectory,
    readonly resources: ResourceDirectory,
    readonly prompts: PromptDirectory,
    readonly guard: ScopeGuard,
  ) {
    const hash = createHash('sha256');
    for (const tool of tools.tools)
      if (tool.definition._meta?.ui !== undefined)
        hash.update(JSON.stringify([tool.name, tool.definition._meta.ui])).update('\n');
    this.uiVersion = hash.digest('hex');
    this.serverInfo = server
      ? Object.freeze({ name: `Portico: ${server.name}`, version: PORTICO.version })
      : PORTICO;
  }

  /** Whether the list holds anything of the gateway's (a consolidated tool's members count). */
  holds(kind: UpstreamList, gatewayId: string): boolean {
    const ofGateway = (entry: { gatewayId: string }) => entry.gatewayId === gatewayId;
    switch (kind) {
      case 'tools':
        return this.tools.gateways.has(gatewayId);
      case 'resources':
        return this.resources.resources.some(ofGateway) || this.resources.templates.some(ofGateway);
      case 'prompts':
        return this.prompts.prompts.some(ofGateway);
    }
  }

  /** The version of a list; another one means the client's copy is stale. */
  version(kind: UpstreamList): string {
    switch (kind) {
      case 'tools':
        return this.tools.fingerprint;
      case 'resources':
        return `${this.resources.fingerprint}.${this.uiVersion}`;
      case 'prompts':
        return this.prompts.fingerprint;
    }
  }
}

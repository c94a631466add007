import { ConsolidatedMember } from '../consolidated-tools/consolidated-member.entity';
import { ConsolidatedTool } from '../consolidated-tools/consolidated-tool.entity';
import { ServerConsolidatedTool } from '../consolidated-tools/server-consolidated-tool.entity';
import { ApprovalGrant } from '../approvals/approval-grant.entity';
import { ApprovalUse } from '../approvals/approval-use.entity';
import { AuditEntry } from '../audit/audit-entry.entity';
import { ConfigApply } from '../config-as-code/config-apply.entity';
import { ToolEmbedding } from '../embeddings/tool-embedding.entity';
import { LoginAttempt } from '../auth/login-attempt.entity';
import { EndedSession } from '../auth/ended-session.entity';
import { EventRelay } from '../events/event-relay.entity';
import { Gateway } from '../gateways/gateway.entity';
import { McpSession } from '../mcp/state/mcp-session.entity';
import { McpStreamEvent } from '../mcp/state/mcp-stream-event.entity';
import { McpPromotion } from '../mcp/state/mcp-promotion.entity';
import { Prompt } from '../prompts/prompt.entity';
import { ResourceTemplate } from '../resources/resource-template.entity';
import { Resource } from '../resources/resource.entity';
import {
  ServerPrompt,
  ServerResource,
  ServerResourceTemplate,
} from '../servers/server-members.entity';
import { ServerTool } from '../servers/server-tool.entity';
import { Server } from '../servers/server.entity';
import { OAuthClient } from '../oauth/oauth-client.entity';
import { OAuthCode } from '../oauth/oauth-code.entity';
import { OAuthGrant } from '../oauth/oauth-grant.entity';
import { OAuthRefreshToken } from '../oauth/oauth-refresh-token.entity';
import { TeamMember } from '../teams/team-member.entity';
import { Team } from '../teams/team.entity';
import { ApiToken } from '../tokens/api-token.entity';
import { ForgottenPins } from '../pinning/forgotten-pins.entity';
import { PinTombstone } from '../pinning/pin-tombstone.entity';
import { Tool } from '../tools/tool.entity';
import { ServerSkill, Skill } from '../skills/skill.entity';
import { ServerToolOverride } from '../servers/server-tool-override.entity';
import { Policy } from '../policies/policy.entity';
import { RateLimit, RateLimitCounter } from '../rate-limits/rate-limit.entity';
import { User } from '../users/user.entity';
import { UpstreamOAuthClient } from '../upstream/oauth/upstream-oauth-client.entity';
import { UpstreamOAuthToken } from '../upstream/oauth/upstream-oauth-token.entity';

export const ENTITIES = [
  User,
  Team,
  TeamMember,
  ApiToken,
  OAuthClient,
  OAuthGrant,
  OAuthCode,
  OAuthRefreshToken,
  LoginAttempt,
  EndedSession,
  Gateway,
  Tool,
  Server,
  ServerTool,
  Resource,
  ResourceTemplate,
  Prompt,
  ServerResource,
  ServerResourceTemplate,
  ServerPrompt,
  McpSession,
  McpStreamEvent,
  EventRelay,
  ToolEmbedding,
  ServerToolOverride,
  Policy,
  RateLimit,
  RateLimitCounter,
  AuditEntry,
  UpstreamOAuthClient,
  UpstreamOAuthToken,
  ConfigApply,
  McpPromotion,
  Skill,
  ServerSkill,
  ApprovalGrant,
  ApprovalUse,
  PinTombstone,
  ForgottenPins,
  ConsolidatedTool,
  ConsolidatedMember,
  ServerConsolidatedTool,
];

import { Init1795312241825 } from './1795312241825-Init';
import { McpSessions1795313067731 } from './1795313067731-McpSessions';
import { LoginAttempts1795325639193 } from './1795325639193-LoginAttempts';
import { McpCoreStreams1795458120392 } from './1795458120392-McpCoreStreams';
import { ResourcesAndPrompts1795459245669 } from './1795459245669-ResourcesAndPrompts';
import { ToolEmbeddings1795460000000 } from './1795460000000-ToolEmbeddings';
import { Identity1795470000000 } from './1795470000000-Identity';
import { StdioGateways1795480000000 } from './1795480000000-StdioGateways';
import { UpstreamOAuth1795490000000 } from './1795490000000-UpstreamOAuth';
import { AuditTrail1795500000000 } from './1795500000000-AuditTrail';
import { PoliciesAndLimits1795510000000 } from './1795510000000-PoliciesAndLimits';
import { ConfigApply1795520000000 } from './1795520000000-ConfigApply';
import { ToolTextSearch1795323626806 } from './1795323626806-ToolTextSearch';

import { UpstreamEra1795536000000 } from './1795536000000-UpstreamEra';
import { ModernPromotions1795658342730 } from './1795658342730-ModernPromotions';
import { ClientMetadataDocuments1795678689020 } from './1795678689020-ClientMetadataDocuments';
import { DefinitionPins1795690000000 } from './1795690000000-DefinitionPins';
import { Policies1795700000000 } from './1795700000000-Policies';
import { Approvals1795710000000 } from './1795710000000-Approvals';
import { PinTombstones1795901945074 } from './1795901945074-PinTombstones';
import { OnePromotionStore1795915000000 } from './1795915000000-OnePromotionStore';
import { McpRegistryOrigin1795925000000 } from './1795925000000-McpRegistryOrigin';
import { AuditTask1795926500000 } from './1795926500000-AuditTask';
import { Skills1795930000000 } from './1795930000000-Skills';
import { OpenApiGateways1795931000000 } from './1795931000000-OpenApiGateways';
import { EraNames1795950000000 } from './1795950000000-EraNames';
import { EraPolicy1795960000000 } from './1795960000000-EraPolicy';
import { SessionExchangeable1795970000000 } from './1795970000000-SessionExchangeable';
import { PlaygroundAudit1795971000000 } from './1795971000000-PlaygroundAudit';
import { ConsolidatedTools1795972000000 } from './1795972000000-ConsolidatedTools';
import { GatewaySettings1795973000000 } from './1795973000000-GatewaySettings';
import { ApprovalRevision1795974000000 } from './1795974000000-ApprovalRevision';
import { EraExtensions1795975000000 } from './1795975000000-EraExtensions';
import { ApprovalUses1796032980936 } from './1796032980936-ApprovalUses';
import { StreamEventBytes1796100000000 } from './1796100000000-StreamEventBytes';
import { OAuthCodeRequest1796200000000 } from './1796200000000-OAuthCodeRequest';
import { EndedAdminSessions1796210000000 } from './1796210000000-EndedAdminSessions';
import { RateLimitToolIdentity1797100000000 } from './1797100000000-RateLimitToolIdentity';
import { OAuthClientGrantedAt1797200000000 } from './1797200000000-OAuthClientGrantedAt';
import { SessionSubjectIndex1797300000000 } from './1797300000000-SessionSubjectIndex';

/** Every migration, oldest first; the app and the migration job both run this list. */
export const MIGRATIONS = [
  Init1795312241825,
  McpSessions1795313067731,
  ToolTextSearch1795323626806,
  LoginAttempts1795325639193,
  McpCoreStreams1795458120392,
  ResourcesAndPrompts1795459245669,
  ToolEmbeddings1795460000000,
  Identity1795470000000,
  StdioGateways1795480000000,
  UpstreamOAuth1795490000000,
  AuditTrail1795500000000,
  PoliciesAndLimits1795510000000,
  ConfigApply1795520000000,
  UpstreamEra1795536000000,
  ModernPromotions1795658342730,
  ClientMetadataDocuments1795678689020,
  DefinitionPins1795690000000,
  Policies1795700000000,
  Approvals1795710000000,
  PinTombstones1795901945074,
  OnePromotionStore1795915000000,
  McpRegistryOrigin1795925000000,
  AuditTask1795926500000,
  Skills1795930000000,
  OpenApiGateways1795931000000,
  EraNames1795950000000,
  EraPolicy1795960000000,
  SessionExchangeable1795970000000,
  PlaygroundAudit1795971000000,
  ConsolidatedTools1795972000000,
  GatewaySettings1795973000000,
  ApprovalRevision1795974000000,
  EraExtensions1795975000000,
  ApprovalUses1796032980936,
  StreamEventBytes1796100000000,
  OAuthCodeRequest1796200000000,
  EndedAdminSessions1796210000000,
  RateLimitToolIdentity1797100000000,
  OAuthClientGrantedAt1797200000000,
  SessionSubjectIndex1797300000000,
];

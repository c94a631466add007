import { type ConfigSection } from './sections/config-section';
import { consolidatedToolsSection } from './sections/consolidated-tools.section';
import { gatewaysSection } from './sections/gateways.section';
import { policiesSection } from './sections/policies.section';
import { rateLimitsSection } from './sections/rate-limits.section';
import { serversSection } from './sections/servers.section';
import { teamsSection } from './sections/teams.section';
import { toolRulesSection } from './sections/tool-rules.section';

/**
 * The document's sections in the order they are applied (each may refer to those before it);
 * pruning runs in reverse. A new section is one entry here.
 */
export const CONFIG_SECTIONS: readonly ConfigSection[] = [
  teamsSection,
  gatewaysSection,
  serversSection,
  consolidatedToolsSection,
  rateLimitsSection,
  policiesSection,
  toolRulesSection,
];

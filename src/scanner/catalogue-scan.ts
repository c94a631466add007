import { isJsonObject } from '../common/json-value';
import { scanDefinition } from './definition-scanner';
import {
  type Finding,
  type FindingSeverity,
  type ScannedDefinition,
  worstSeverity,
} from './finding';
import { type KnownTool, scanContext, ToolNameIndex } from './tool-name-index';

/** One gateway's listed definitions, as `tools/list`, `prompts/list` and friends sent them. */
export interface CatalogueUnderScan {
  slug: string;
  tools: readonly unknown[];
  prompts?: readonly unknown[];
  resourceTemplates?: readonly unknown[];
}

export interface CatalogueFinding extends Finding {
  catalogue: string;
  kind: ScannedDefinition['kind'];
  definition: string;
}

export interface CatalogueScanReport {
  catalogues: number;
  definitions: number;
  /** Definitions by their worst finding's severity. */
  flagged: Record<FindingSeverity, number>;
  findings: CatalogueFinding[];
}

/** A listed tool, prompt or resource template as the scanner reads it. */
export function scannedDefinition(
  kind: ScannedDefinition['kind'],
  raw: unknown,
): ScannedDefinition {
  const entry = isJsonObject(raw) ? raw : {};
  const text = (value: unknown) => (typeof value === 'string' ? value : null);
  return {
    kind,
    name: text(entry.name) ?? '',
    title: text(entry.title),
    description: text(entry.description),
    inputSchema: entry.inputSchema,
    outputSchema: entry.outputSchema,
    annotations: entry.annotations,
    meta: entry._meta,
    arguments: entry.arguments,
    uriTemplate: text(entry.uriTemplate) ?? undefined,
  };
}

function definitionsOf(catalogue: CatalogueUnderScan): ScannedDefinition[] {
  return [
    ...catalogue.tools.map((raw) => scannedDefinition('tool', raw)),
    ...(catalogue.prompts ?? []).map((raw) => scannedDefinition('prompt', raw)),
    ...(catalogue.resourceTemplates ?? []).map((raw) => scannedDefinition('resourceTemplate', raw)),
  ];
}

/**
 * Scans every definition of every catalogue, each gateway in the context of all the others, as
 * a sync of each would.
 */
export function scanCatalogues(catalogues: readonly CatalogueUnderScan[]): CatalogueScanReport {
  const all = catalogues.map((catalogue) => ({ catalogue, definitions: definitionsOf(catalogue) }));
  const known: KnownTool[] = all.flatMap(({ catalogue, definitions }) =>
    definitions
      .filter((definition) => definition.kind === 'tool')
      .map((definition) => ({ gatewaySlug: catalogue.slug, name: definition.name })),
  );
  const index = ToolNameIndex.of(known);
  const report: CatalogueScanReport = {
    catalogues: catalogues.length,
    definitions: 0,
    flagged: { high: 0, medium: 0, low: 0 },
    findings: [],
  };
  for (const { catalogue, definitions } of all) {
    const context = scanContext({
      gatewaySlug: catalogue.slug,
      ownTools: definitions.map((definition) => definition.name),
      tools: index,
    });
    for (const definition of definitions) {
      report.definitions++;
      const findings = scanDefinition(definition, context);
      const worst = worstSeverity(findings);
      if (worst !== null) report.flagged[worst]++;
      for (const finding of findings)
        report.findings.push({
          catalogue: catalogue.slug,
          kind: definition.kind,
          definition: definition.name,
          ...finding,
        });
    }
  }
  return report;
}

/** The share of definitions whose worst finding is at least `severity`. */
export function flaggedRate(report: CatalogueScanReport, severity: FindingSeverity): number {
  const counted =
    severity === 'high'
      ? report.flagged.high
      : severity === 'medium'
        ? report.flagged.high + report.flagged.medium
        : report.flagged.high + report.flagged.medium + report.flagged.low;
  return report.definitions === 0 ? 0 : counted / report.definitions;
}

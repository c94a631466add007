import { createHash } from 'node:crypto';
import { UriTemplate } from '@modelcontextprotocol/server';
import {
  type Resource as McpResource,
  type ResourceTemplateType as McpResourceTemplate,
} from '@modelcontextprotocol/server';
import { splitVirtualUri, virtualUri } from '../../resources/resource-uri';

/**
 * An upstream's MCP Apps page (`ui://`) is served only as the per-tool UI resource that wraps it:
 * read as it is, the app would call its backend tools by names no gateway routes.
 */
export function isAppPage(upstreamUri: string): boolean {
  return upstreamUri.startsWith('ui://');
}

/** Where a resource URI is read: the gateway, and the URI its upstream knows. */
export interface ResourceTarget {
  gatewayId: string;
  gatewaySlug: string;
  upstreamUri: string;
}

/** A served resource as a scope lists it. */
export interface DirectoryResource extends ResourceTarget {
  /** The URI the client sees: prefixed, or the upstream's under original naming. */
  uri: string;
  definition: McpResource;
}

export interface DirectoryTemplate {
  gatewayId: string;
  gatewaySlug: string;
  /** The template the client sees, and the upstream's. */
  uriTemplate: string;
  upstreamTemplate: string;
  definition: McpResourceTemplate;
}

/**
 * The resources and templates one scope serves, and how a client's URI reaches its upstream:
 * a listed resource's URI, then a URI of a member template. On a prefixed scope the slug says
 * which gateway; under original naming a URI two gateways' templates match is refused as
 * ambiguous rather than sent to either.
 */
export class ResourceDirectory {
  readonly byUri: ReadonlyMap<string, DirectoryResource>;
  readonly byTemplate: ReadonlyMap<string, DirectoryTemplate>;
  readonly definitions: readonly McpResource[];
  readonly templateDefinitions: readonly McpResourceTemplate[];
  readonly fingerprint: string;
  private readonly matchers: { template: DirectoryTemplate; matcher: UriTemplate }[];

  constructor(
    readonly resources: readonly DirectoryResource[],
    readonly templates: readonly DirectoryTemplate[],
    /** Prefixed scopes: the gateways by slug. On `/mcp`, any URI of theirs may be read. */
    private readonly prefixed: { gateways: ReadonlyMap<string, string>; readAny: boolean } | null,
  ) {
    this.byUri = new Map(resources.map((resource) => [resource.uri, resource]));
    this.byTemplate = new Map(templates.map((template) => [template.uriTemplate, template]));
    this.definitions = resources.map((resource) => resource.definition);
    this.templateDefinitions = templates.map((template) => template.definition);
    this.matchers = templates.flatMap((template) => {
      try {
        return [{ template, matcher: new UriTemplate(template.upstreamTemplate) }];
      } catch {
        return [];
      }
    });
    const hash = createHash('sha256');
    for (const entry of [...this.definitions, ...this.templateDefinitions])
      hash.update(JSON.stringify(entry)).update('\n');
    this.fingerprint = hash.digest('hex');
  }

  /** Where a client's URI is read; null when this scope serves no such URI. */
  resolve(uri: string): ResourceTarget | 'ambiguous' | null {
    const listed = this.byUri.get(uri);
    if (listed) return listed;
    if (this.prefixed) {
      const split = splitVirtualUri(uri);
      const gatewayId = split && this.prefixed.gateways.get(split.gatewaySlug);
      if (!split || !gatewayId || isAppPage(split.uri)) return null;
      const target = { gatewayId, gatewaySlug: split.gatewaySlug, upstreamUri: split.uri };
      if (this.prefixed.readAny) return target;
      const matches = this.matching(split.uri).filter((t) => t.gatewayId === gatewayId);
      return matches.length > 0 ? target : null;
    }
    if (isAppPage(uri)) return null;
    const matches = this.matching(uri);
    const gateways = new Set(matches.map((template) => template.gatewayId));
    if (gateways.size > 1) return 'ambiguous';
    const [first] = matches;
    return first
      ? { gatewayId: first.gatewayId, gatewaySlug: first.gatewaySlug, upstreamUri: uri }
      : null;
  }

  /** The client's URI of an upstream one, as a resource update names it. */
  clientUri(gatewaySlug: string, upstreamUri: string): string {
    return this.prefixed ? virtualUri(gatewaySlug, upstreamUri) : upstreamUri;
  }

  private matching(upstreamUri: string): DirectoryTemplate[] {
    return this.matchers
      .filter(({ matcher }) => {
        try {
          return matcher.match(upstreamUri) !== null;
        } catch {
          return false;
        }
      })
      .map(({ template }) => template);
  }
}

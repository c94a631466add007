import { createHash } from 'node:crypto';
import { UriTemplate } from '@modelcontextprotocol/server';
import {
  type Resource as McpResource,
  type ResourceTemplateType as McpResourceTemplate,
} from '@modelcontextprotocol/server';
import { comparableUri, splitVirtualUri, virtualUri } from '../../resources/resource-uri';
import { hasDotSegment } from '../../common/dot-segment';

/**
 * An upstream's MCP Apps page (`ui://`) is served only as the per-tool UI resource that wraps it:
 * read as it is, the app would call its backend tools by names no gateway routes.
 */
export function isAppPage(upstreamUri: string): boolean {
  return comparableUri(upstreamUri).startsWith('ui://');
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
  readonly templateDefinitions: readonly McpResourceTemplate[];
  readonly fingerprint: string;
  private readonly matchers: TemplateMatcher<DirectoryTemplate>[];
  /** Withdrawn resources' upstream URIs, by gateway. */
  private readonly withdrawnUris = new Map<string, Set<string>>();
  private readonly withdrawnTemplates: TemplateMatcher[];

  constructor(
    readonly resources: readonly DirectoryResource[],
    readonly templates: readonly DirectoryTemplate[],
    /** Prefixed scopes: the gateways by slug. On `/mcp`, any URI of theirs may be read. */
    private readonly prefixed: { gateways: ReadonlyMap<string, string>; readAny: boolean } | null,
    {
      withdrawn = { resources: [], templates: [] },
      stamp = '',
    }: {
      /** What operators withdrew (see ServedResourcesQuery.withdrawn): never read here. */
      withdrawn?: Withdrawn;
      /** More that decides what the list shows: the scope's policies, its skills' states. */
      stamp?: string;
    } = {},
  ) {
    this.byUri = new Map(resources.map((resource) => [resource.uri, resource]));
    this.byTemplate = new Map(templates.map((template) => [template.uriTemplate, template]));
    this.templateDefinitions = templates.map((template) => template.definition);
    this.matchers = matchersOf(templates, (template) => template.upstreamTemplate);
    for (const { gatewayId, uri } of withdrawn.resources) {
      const uris = this.withdrawnUris.get(gatewayId) ?? new Set<string>();
      uris.add(comparableUri(uri));
      this.withdrawnUris.set(gatewayId, uris);
    }
    this.withdrawnTemplates = matchersOf(withdrawn.templates, (template) => template.uriTemplate);
    const hash = createHash('sha256').update(stamp).update('\n');
    for (const entry of [
      ...resources.map((resource) => resource.definition),
      ...this.templateDefinitions,
    ])
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
      let matches: DirectoryTemplate[] | undefined;
      const served = () =>
        (matches ??= this.matching(split.uri).filter((t) => t.gatewayId === gatewayId));
      if (!this.prefixed.readAny && served().length === 0) return null;
      if (this.withdrawnFrom(gatewayId, split.uri, served)) return null;
      return { gatewayId, gatewaySlug: split.gatewaySlug, upstreamUri: split.uri };
    }
    if (isAppPage(uri)) return null;
    const matches = this.matching(uri);
    const gateways = new Set(matches.map((template) => template.gatewayId));
    if (gateways.size > 1) return 'ambiguous';
    const [first] = matches;
    return first && !this.withdrawnFrom(first.gatewayId, uri, () => matches)
      ? { gatewayId: first.gatewayId, gatewaySlug: first.gatewaySlug, upstreamUri: uri }
      : null;
  }

  /**
   * Whether an operator withdrew the gateway's URI, however it is spelt (`comparableUri`): a
   * disabled resource, or a URI that a withdrawn template of the gateway matches and none it
   * serves here (`served`) does.
   */
  private withdrawnFrom(
    gatewayId: string,
    upstreamUri: string,
    served: () => readonly DirectoryTemplate[],
  ): boolean {
    const comparable = comparableUri(upstreamUri);
    if (this.withdrawnUris.get(gatewayId)?.has(comparable)) return true;
    const withdrawn = this.withdrawnTemplates.some(
      ({ template, matcher }) =>
        template.gatewayId === gatewayId &&
        (matchesUri(matcher, upstreamUri) || matchesUri(matcher, comparable)),
    );
    return withdrawn && !served().some((template) => template.gatewayId === gatewayId);
  }

  /** The client's URI of an upstream one, as a resource update names it. */
  clientUri(gatewaySlug: string, upstreamUri: string): string {
    return this.prefixed ? virtualUri(gatewaySlug, upstreamUri) : upstreamUri;
  }

  /**
   * Content blocks of a gateway's answer (a tool result's `content`, a prompt message's) with
   * the resources they name (`resource_link`, an embedded `resource`) under the client's URIs: on
   * a prefixed scope only `<slug>+<uri>` reads them here, and an upstream's link cannot name
   * another gateway's resource. Anything else, and content naming none, is returned as it came.
   */
  clientContent<T>(gatewaySlug: string, content: T): T {
    if (!this.prefixed) return content;
    const named = (block: unknown): unknown => {
      const { type, uri, resource } = (block ?? {}) as ContentBlock;
      if (!RESOURCE_BLOCKS.has(type)) return block;
      if (type === 'resource_link' && typeof uri === 'string')
        return { ...(block as object), uri: virtualUri(gatewaySlug, uri) };
      if (type === 'resource' && typeof resource?.uri === 'string')
        return {
          ...(block as object),
          resource: { ...resource, uri: virtualUri(gatewaySlug, resource.uri) },
        };
      return block;
    };
    if (!Array.isArray(content)) return named(content) as T;
    return content.some((block) => named(block) !== block) ? (content.map(named) as T) : content;
  }

  /** A tool's result with its content's resources under the client's URIs (see clientContent). */
  clientResult<T extends object>(gatewaySlug: string, result: T): T {
    const given = (result as { content?: unknown }).content;
    const content = this.clientContent(gatewaySlug, given);
    return content === given ? result : { ...result, content };
  }

  /**
   * The templates that serve a URI. None serves one with a `.` or `..` segment: a server given
   * `file:///alpha/{+path}` grants files under `/alpha/`, not what an upstream reaches from there.
   */
  private matching(upstreamUri: string): DirectoryTemplate[] {
    if (hasDotSegment(upstreamUri)) return [];
    return this.matchers
      .filter(({ matcher }) => matchesUri(matcher, upstreamUri))
      .map(({ template }) => template);
  }
}

/** The content blocks that name a resource: a link, and an embedded resource. */
export const RESOURCE_BLOCKS: ReadonlySet<unknown> = new Set(['resource_link', 'resource']);

/** What a content block may hold that names a resource. */
interface ContentBlock {
  type?: unknown;
  uri?: unknown;
  resource?: { uri?: unknown };
}

/** What operators withdrew from enabled gateways, as stored. */
export interface Withdrawn {
  resources: readonly { gatewayId: string; uri: string }[];
  templates: readonly { gatewayId: string; uriTemplate: string }[];
}

interface TemplateMatcher<T = { gatewayId: string }> {
  template: T;
  matcher: UriTemplate;
}

/** A matcher for each template whose upstream template parses. */
function matchersOf<T extends { gatewayId: string }>(
  templates: readonly T[],
  upstreamTemplate: (template: T) => string,
): TemplateMatcher<T>[] {
  return templates.flatMap((template) => {
    try {
      return [{ template, matcher: new UriTemplate(upstreamTemplate(template)) }];
    } catch {
      return [];
    }
  });
}

function matchesUri(matcher: UriTemplate, upstreamUri: string): boolean {
  try {
    return matcher.match(upstreamUri) !== null;
  } catch {
    return false;
  }
}

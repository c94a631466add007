import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import {
  ProtocolErrorCode,
  type ReadResourceResult,
  type Result,
  type ServerCapabilities,
} from '@modelcontextprotocol/server';
import { McpSettings } from '../../config/slices/mcp.settings';
import {
  admitSkill,
  cacheHintOf,
  type CacheHint,
  clientEntry,
  manifestHash,
  mergedCacheHint,
  SKILLS_EXTENSION,
} from '../../skills/skill-manifest';
import { UpstreamClient } from '../../upstream/upstream-client';
import { UpstreamFailure } from '../../upstream/upstream-error';
import { resultItems } from '../../upstream/upstream-lists';
import { invalidParams, RpcError } from '../protocol/mcp-errors';
import { type McpRequest, type Served } from '../protocol/mcp-request';
import { paginate } from '../protocol/paginate';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type ServedSkill, servedTo } from './skill-directory';
import { SkillDirectories } from './skill-directories.service';

/**
 * The longest a client may keep a skills answer of Portico's: past it Portico may have synced
 * another catalogue, whatever the upstreams allowed.
 */
export const SKILLS_TTL_CAP_MS = 60_000;

/**
 * The Skills extension (SEP-2640) through the gateway: `skills/list` merged across the scope's
 * members, `skills/get`, and the skill files (`resources/read`, `resources/directory/read`) each
 * routed to its upstream under the URI it knows. Contents go back as they came, byte for byte;
 * only the URIs are the client's. Portico reads no file before a client asks for it.
 */
@Injectable()
export class SkillCalls {
  constructor(
    private readonly directories: SkillDirectories,
    private readonly client: UpstreamClient,
    private readonly config: McpSettings,
  ) {}

  /** The scope's capabilities with the extension, where a member upstream brings it. */
  async capabilities(
    request: Pick<McpRequest, 'scope'>,
    capabilities: ServerCapabilities,
  ): Promise<ServerCapabilities> {
    const skills = await this.directories.get(request.scope);
    if (!skills.declared) return capabilities;
    return {
      ...capabilities,
      extensions: {
        ...capabilities.extensions,
        [SKILLS_EXTENSION]: skills.directoryRead ? { directoryRead: true } : {},
      },
    };
  }

  /** `skills/list`: what the principal may see, unheld, in a stable order. */
  async list(request: McpRequest, directory: ScopeDirectory, cursor?: string): Promise<Result> {
    const skills = await this.directories.get(request.scope);
    const visible = skills.skills.filter((skill) => this.visible(request, directory, skill));
    const page = paginate(visible, cursor, this.config.mcpPageSize);
    if (!page) throw invalidParams('Invalid cursor');
    const hint = this.hint(
      visible.map((skill) => skill.hint),
      directory,
    );
    return {
      skills: page.items.map((skill) =>
        clientEntry(skill.entry, (uri) => skills.clientUri(skill, uri)),
      ),
      ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      ...hint,
    };
  }

  /** `skills/get`: the upstream's entry now, refused when it is not the approved one. */
  async get(request: McpRequest, directory: ScopeDirectory, served: Served): Promise<Result> {
    const uri = uriOf(request.params, 'skills/get');
    const skills = await this.directories.get(request.scope);
    const skill = skills.skill(uri);
    if (!skill || !this.visible(request, directory, skill))
      throw invalidParams(`No skill is served at ${uri}`);
    served.gateway = skill.gatewaySlug;
    const readAt = new Date();
    const result = await this.client.call(skill.gatewayId, request.affinity, (connection) =>
      connection.request('skills/get', { uri: skill.entry.uri }, { signal: request.signal }),
    );
    const entry = admitSkill((result as { skill?: unknown }).skill);
    if ('reason' in entry)
      throw new UpstreamFailure(
        'protocol',
        `skills/get answered with an invalid entry: ${entry.reason}`,
      );
    if (entry.uri !== skill.entry.uri || manifestHash(entry) !== skill.manifestHash)
      throw heldBack(uri, 'its upstream now serves another manifest than the one approved');
    return {
      skill: clientEntry(entry, (upstream) => skills.clientUri(skill, upstream)),
      ...this.hint([cacheHintOf(result, readAt)], directory),
    };
  }

  /**
   * `resources/read` of a skill file: null when the URI is no member skill's, for the ordinary
   * resources to answer. The contents' bytes are checked against the approved manifest and go
   * back untouched: a file that changed upstream is refused, never passed on.
   */
  async readFile(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<ReadResourceResult | null> {
    const uri = uriOf(request.params, 'resources/read');
    const skills = await this.directories.get(request.scope);
    const skill = skills.owner(uri);
    if (!skill) return null;
    if (!this.visible(request, directory, skill))
      throw invalidParams(`No skill is served at ${uri}`);
    const upstreamUri = skills.upstreamUri(skill, uri);
    const approved = skill.approvedFiles?.get(upstreamUri);
    if (skill.approvedFiles && !approved)
      throw invalidParams(`${uri} is not a file of the skill's manifest`);
    served.gateway = skill.gatewaySlug;
    const { _meta } = request.params as Record<string, unknown>;
    const read = await this.client.call(skill.gatewayId, request.affinity, (connection) =>
      connection.request<ReadResourceResult>(
        'resources/read',
        { uri: upstreamUri, ...(_meta === undefined ? {} : { _meta }) },
        { signal: request.signal },
      ),
    );
    const contents = resultItems<ReadResourceResult['contents'][number]>(
      read,
      'resources/read',
      'contents',
      'uri',
    );
    // Every item is the file asked for, with the approved bytes: an item under another URI
    // (`…/SKILL.md#`, a second file beside the first) would carry bytes no one reviewed.
    if (approved)
      for (const content of contents)
        if (content.uri !== upstreamUri || digestOf(content) !== approved.digest)
          throw heldBack(
            uri,
            content.uri === upstreamUri
              ? "the file's bytes are not those of the approved manifest"
              : `the upstream answered with another file (${String(content.uri).slice(0, 200)})`,
          );
    return {
      ...read,
      contents: contents.map((content) => ({
        ...content,
        uri: skills.clientUri(skill, content.uri),
      })),
      ...this.boundHint(read, directory),
    };
  }

  /** `resources/directory/read` of a skill's directory, routed as a file read is. */
  async readDirectory(
    request: McpRequest,
    directory: ScopeDirectory,
    served: Served,
  ): Promise<Result> {
    const uri = uriOf(request.params, 'resources/directory/read');
    const { cursor } = (request.params ?? {}) as { cursor?: unknown };
    if (cursor !== undefined && typeof cursor !== 'string')
      throw invalidParams('cursor must be a string');
    const skills = await this.directories.get(request.scope);
    if (!skills.directoryRead)
      throw new RpcError(ProtocolErrorCode.MethodNotFound, 'Method not found');
    const skill = skills.owner(uri);
    if (!skill || !skill.directoryRead || !this.visible(request, directory, skill))
      throw invalidParams(`${uri} is not a directory of a skill served here`);
    served.gateway = skill.gatewaySlug;
    const result = await this.client.call(skill.gatewayId, request.affinity, (connection) =>
      connection.request(
        'resources/directory/read',
        { uri: skills.upstreamUri(skill, uri), ...(cursor === undefined ? {} : { cursor }) },
        { signal: request.signal },
      ),
    );
    const listed = (result as { resources?: unknown }).resources;
    if (!Array.isArray(listed) || listed.length > 10_000)
      throw new UpstreamFailure(
        'protocol',
        'resources/directory/read answered without a bounded resources list',
      );
    return {
      ...result,
      resources: (listed as Record<string, unknown>[]).map((child) =>
        typeof child?.uri === 'string'
          ? { ...child, uri: skills.clientUri(skill, child.uri) }
          : child,
      ),
      ...this.boundHint(result, directory),
    };
  }

  private visible(request: McpRequest, directory: ScopeDirectory, skill: ServedSkill): boolean {
    return servedTo(directory, request.principal, skill);
  }

  /** Merged hints; a listing that policies filter depends on who asks, so it is private. */
  private hint(hints: Parameters<typeof mergedCacheHint>[0], directory: ScopeDirectory): CacheHint {
    return mergedCacheHint(hints, SKILLS_TTL_CAP_MS, !directory.guard.policy.empty);
  }

  /** An upstream result's own hint, where it gave one, no looser than Portico's. */
  private boundHint(result: Result, directory: ScopeDirectory): Partial<CacheHint> {
    const given = result as { ttlMs?: unknown; cacheScope?: unknown };
    if (given.ttlMs === undefined && given.cacheScope === undefined) return {};
    return this.hint([cacheHintOf(result, new Date())], directory);
  }
}

function uriOf(params: unknown, method: string): string {
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (typeof uri !== 'string' || uri.length > 4096) throw invalidParams(`${method} needs a uri`);
  return uri;
}

/**
 * `sha256:<hex>` of a content's raw bytes: its text as UTF-8, or its blob decoded; null for one
 * that carries both, whose other bytes no digest covers.
 */
function digestOf(content: { text?: unknown; blob?: unknown }): string | null {
  if (content.text !== undefined && content.blob !== undefined) return null;
  const bytes =
    typeof content.text === 'string'
      ? Buffer.from(content.text, 'utf8')
      : Buffer.from(typeof content.blob === 'string' ? content.blob : '', 'base64');
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function heldBack(uri: string, why: string): RpcError {
  return new RpcError(
    ProtocolErrorCode.InvalidRequest,
    `${uri} is held for review: ${why}. An operator approves the new manifest first.`,
  );
}

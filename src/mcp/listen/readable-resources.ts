import { Injectable } from '@nestjs/common';
import { McpAccess } from '../../auth/mcp-access';
import { type Principal } from '../../auth/principal';
import { Directories } from '../directory/directories.service';
import { type ResourceTarget } from '../directory/resource-directory';
import { type ScopeDirectory } from '../directory/scope-directory';
import { type McpScope } from '../protocol/mcp-scope';
import { SkillDirectories } from '../skills/skill-directories.service';

/**
 * Whether a followed resource is one the principal may still read, asked when a follow starts
 * and again at each update: a resource taken off the server since, disabled, a skill's file no
 * longer served to them, or any of a server they may no longer use is no longer told of, though
 * its upstream goes on sending.
 */
@Injectable()
export class ReadableResources {
  constructor(
    private readonly directories: Directories,
    private readonly skills: SkillDirectories,
    private readonly access: McpAccess,
  ) {}

  /**
   * Where `uri` is read in the scope for the principal; null where it names nothing they may read,
   * or they may no longer use the endpoint (the server moved to a team they are not in).
   */
  async target(scope: McpScope, principal: Principal, uri: string): Promise<ResourceTarget | null> {
    if (!(await this.access.check(principal, scope)).allowed) return null;
    const directory = await this.directories.get(scope);
    const resolved = directory && (await this.resolve(directory, principal, uri));
    return resolved && typeof resolved === 'object' ? resolved : null;
  }

  /**
   * Where `uri` is read in the directory for the principal, or why not: no resource, several
   * upstreams' templates (`ambiguous`), or a skill's file not served to them (`withheld`; an
   * upstream may list a skill's files as resources too, as the SDK's extension does).
   */
  async resolve(
    directory: ScopeDirectory,
    principal: Principal,
    uri: string,
  ): Promise<ResourceTarget | 'ambiguous' | 'withheld' | null> {
    const target = directory.resources.resolve(uri);
    if (!target || target === 'ambiguous') return target;
    return (await this.skills.withheld(directory, principal))(target, uri) ? 'withheld' : target;
  }

  /** `tell`, for updates of `uri` that the principal may still read. */
  updates(scope: McpScope, principal: Principal, uri: string, tell: () => void): () => void {
    return () =>
      void this.target(scope, principal, uri).then(
        (target) => target && tell(),
        () => undefined,
      );
  }
}

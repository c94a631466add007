import { type GatewayShape } from './gateway-plan';
import { type ServerJson } from './server-json';

/** One difference a re-import would make, secrets never among them (only names are shown). */
export interface ImportChange {
  field: string;
  before: string | null;
  after: string | null;
}

/** What a gateway imported before is now: its connection, as the gateway holds it. */
export interface ImportedGateway {
  entry: ServerJson;
  transport: string;
  url: string | null;
  command: string | null;
  args: readonly string[] | null;
}

/**
 * What re-importing an entry would change, field by field: the entry's version, remotes and
 * packages, the headers, URL variables and environment variables it asks for, and the
 * connection of the gateway itself. Empty when nothing would change.
 */
export function importChanges(
  before: ImportedGateway,
  after: ServerJson,
  shape: GatewayShape,
): ImportChange[] {
  const changes: ImportChange[] = [];
  const compare = (field: string, old: string | null, now: string | null) => {
    if (old !== now) changes.push({ field, before: old, after: now });
  };
  compare('version', before.entry.version, after.version);
  compare('remotes', remotesOf(before.entry), remotesOf(after));
  compare('packages', packagesOf(before.entry), packagesOf(after));
  compare('headers', headersOf(before.entry), headersOf(after));
  compare('variables', variablesOf(before.entry), variablesOf(after));
  compare('environmentVariables', envOf(before.entry), envOf(after));
  compare('transport', before.transport, shape.transport);
  if (shape.transport === 'stdio') {
    compare('command', before.command, shape.command);
    compare(
      'args',
      before.args === null ? null : JSON.stringify(before.args),
      JSON.stringify(shape.args),
    );
  } else {
    compare('url', before.url, shape.url);
  }
  return changes;
}

function joined(items: readonly string[]): string | null {
  return items.length === 0 ? null : items.join(', ');
}

function remotesOf(entry: ServerJson): string | null {
  return joined((entry.remotes ?? []).map((remote) => `${remote.type} ${remote.url}`));
}

function packagesOf(entry: ServerJson): string | null {
  return joined(
    (entry.packages ?? []).map(
      (pkg) => `${pkg.registryType} ${pkg.identifier}${pkg.version ? `@${pkg.version}` : ''}`,
    ),
  );
}

function headersOf(entry: ServerJson): string | null {
  return joined(
    (entry.remotes ?? []).flatMap((remote) =>
      (remote.headers ?? []).map(
        (header) => `${header.name}${header.isRequired ? ' (required)' : ''}`,
      ),
    ),
  );
}

function variablesOf(entry: ServerJson): string | null {
  return joined((entry.remotes ?? []).flatMap((remote) => Object.keys(remote.variables ?? {})));
}

function envOf(entry: ServerJson): string | null {
  return joined(
    (entry.packages ?? []).flatMap((pkg) =>
      (pkg.environmentVariables ?? []).map(
        (variable) => `${variable.name}${variable.isRequired ? ' (required)' : ''}`,
      ),
    ),
  );
}

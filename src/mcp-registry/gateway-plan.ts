import { isURL } from 'class-validator';
import {
  MAX_STDIO_ARG,
  MAX_STDIO_ARGS,
  UPSTREAM_URL_OPTIONS,
  URL_MAX_LENGTH,
} from '../gateways/dto/gateway-create.dto';
import {
  type Argument,
  type KeyValueInput,
  type Package,
  type Remote,
  type ServerJson,
} from './server-json';

/** What the operator chose and supplied for an import. */
export interface ImportChoice {
  /** Which remote (index into `remotes`); by default the first, if there is one. */
  remote?: number;
  /** Which package (index into `packages`); used when there is no remote or when given. */
  package?: number;
  /** Values of the remote's `{var}` URL variables. */
  variables?: Record<string, string>;
  /** Values of the remote's headers: stored as the gateway's encrypted header credentials. */
  headers?: Record<string, string>;
  /** Values of the package's environment variables: stored encrypted. */
  env?: Record<string, string>;
}

/** What a gateway already holds, so that a re-import need not be given its secrets again. */
/** The values a gateway imported before holds, by name: a re-import keeps what it is not given. */
export interface KeptSecrets {
  headers: Readonly<Record<string, string>>;
  env: Readonly<Record<string, string>>;
}

/** The gateway an entry becomes: the fields of a gateway create or update. */
export type GatewayShape =
  | {
      transport: 'streamable-http' | 'sse';
      url: string;
      /** Null: no new values given, the stored ones stay. */
      headers: Record<string, string> | null;
      headerNames: string[];
      variables: Record<string, string>;
    }
  | {
      transport: 'stdio';
      command: string;
      args: string[];
      /** Null: no new values given, the stored ones stay. */
      env: Record<string, string> | null;
      envNames: string[];
      registryType: string;
    };

/** Why an entry cannot become a gateway as asked, in words for the operator. */
export class ImportProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImportProblem';
  }
}

/** Characters a URL variable's value may hold: a host, port or path segment, nothing that re-shapes the URL. */
const VARIABLE_VALUE = /^[A-Za-z0-9._~:/-]{1,512}$/;
const TEMPLATE = /\{([^{}]*)\}/g;

/**
 * The gateway a server.json entry becomes: a remote (`streamable-http` or `sse`) with its `{var}`
 * URL filled and its headers asked for, or a package launched as a stdio upstream. Throws an
 * ImportProblem naming what is missing or not supported.
 */
export function gatewayShapeOf(
  entry: ServerJson,
  choice: ImportChoice,
  kept: KeptSecrets = { headers: {}, env: {} },
): GatewayShape {
  const remotes = entry.remotes ?? [];
  const packages = entry.packages ?? [];
  if (choice.remote !== undefined && choice.package !== undefined)
    throw new ImportProblem('Choose a remote or a package, not both.');
  if (choice.package !== undefined || (choice.remote === undefined && remotes.length === 0)) {
    const index = choice.package ?? 0;
    const chosen = packages[index];
    if (!chosen)
      throw new ImportProblem(
        packages.length === 0 && remotes.length === 0
          ? `'${entry.name}' has neither remotes nor packages: there is nothing to connect to.`
          : `'${entry.name}' has no package ${index} (it has ${packages.length}).`,
      );
    if (choice.headers !== undefined || choice.variables !== undefined)
      throw new ImportProblem('headers and variables apply to remotes; a package takes env.');
    return packageShape(entry, chosen, choice.env, kept.env);
  }
  const index = choice.remote ?? 0;
  const chosen = remotes[index];
  if (!chosen)
    throw new ImportProblem(`'${entry.name}' has no remote ${index} (it has ${remotes.length}).`);
  if (choice.env !== undefined)
    throw new ImportProblem('env applies to packages; a remote takes headers.');
  return remoteShape(chosen, choice, kept.headers);
}

function remoteShape(
  remote: Remote,
  choice: ImportChoice,
  kept: Readonly<Record<string, string>>,
): GatewayShape {
  const declared = remote.variables ?? {};
  const supplied = choice.variables ?? {};
  for (const name of Object.keys(supplied))
    if (!Object.hasOwn(declared, name))
      throw new ImportProblem(
        `The remote has no URL variable '${name}' (it has: ${namesOf(Object.keys(declared))}).`,
      );
  const variables: Record<string, string> = {};
  const url = remote.url.replace(TEMPLATE, (_whole, name: string) => {
    const variable = Object.hasOwn(declared, name) ? declared[name] : undefined;
    if (!variable)
      throw new ImportProblem(`The remote's URL uses '{${name}}', which it does not declare.`);
    const value = supplied[name] ?? variable.default;
    if (value === undefined)
      throw new ImportProblem(
        `The remote's URL needs the variable '${name}'${describe(variable.description)}: give its value.`,
      );
    if (!VARIABLE_VALUE.test(value))
      throw new ImportProblem(
        `The value of URL variable '${name}' may hold only letters, digits and . _ ~ : / -.`,
      );
    if (variable.choices && variable.choices.length > 0 && !variable.choices.includes(value))
      throw new ImportProblem(
        `The URL variable '${name}' must be one of: ${variable.choices.join(', ')}.`,
      );
    variables[name] = value;
    return value;
  });
  if (url.length > URL_MAX_LENGTH || !isURL(url, UPSTREAM_URL_OPTIONS))
    throw new ImportProblem(
      `The remote's URL '${url.slice(0, 200)}' is not an absolute http(s) URL Portico connects to.`,
    );
  const headers = values('header', remote.headers ?? [], choice.headers, kept);
  return {
    transport: remote.type,
    url,
    headers,
    headerNames: (remote.headers ?? []).map((header) => header.name),
    variables,
  };
}

/** How each kind of package is launched: the command, then its arguments before the package's own. */
/**
 * How each registry names a package: what its launcher takes as the package, never as one of its
 * own options (an identifier `--call=…` would have npx run a shell command).
 */
const PACKAGE_NAMES: Record<string, RegExp> = {
  npm: /^(@[A-Za-z0-9][\w.~-]*\/)?[A-Za-z0-9][\w.~-]*$/,
  pypi: /^[A-Za-z0-9]([\w.-]*[A-Za-z0-9])?$/,
  nuget: /^[A-Za-z0-9_][\w.-]*$/,
  oci: /^[A-Za-z0-9][\w./:@+-]*$/,
};
const PACKAGE_VERSION = /^[A-Za-z0-9][\w.+~-]*$/;

function launcher(
  entry: ServerJson,
  pkg: Package,
  envNames: string[],
): { command: string; args: string[] } {
  const version = pkg.version;
  const named = PACKAGE_NAMES[pkg.registryType];
  const unlike = named && !named.test(pkg.identifier) ? 'identifier' : null;
  const problem = unlike ?? (version && !PACKAGE_VERSION.test(version) ? 'version' : null);
  if (problem)
    throw new ImportProblem(
      `'${entry.name}' package ${problem} '${(problem === 'version' ? version! : pkg.identifier).slice(0, 100)}' is not a ${pkg.registryType} package ${problem} (a launcher could read it as an option)`,
    );
  switch (pkg.registryType) {
    case 'npm':
      return {
        command: 'npx',
        args: ['-y', version ? `${pkg.identifier}@${version}` : pkg.identifier],
      };
    case 'pypi':
      return { command: 'uvx', args: [version ? `${pkg.identifier}==${version}` : pkg.identifier] };
    case 'nuget':
      return {
        command: 'dnx',
        args: [version ? `${pkg.identifier}@${version}` : pkg.identifier, '--yes'],
      };
    case 'oci': {
      const image =
        version && !pkg.identifier.includes(':') ? `${pkg.identifier}:${version}` : pkg.identifier;
      // `-e NAME` without a value hands the variable from docker's own environment to the container.
      return {
        command: 'docker',
        args: ['run', '-i', '--rm', ...envNames.flatMap((name) => ['-e', name]), image],
      };
    }
    default:
      throw new ImportProblem(
        `'${entry.name}' package '${pkg.identifier}' is of registry type '${pkg.registryType}', which Portico does not launch (it launches npm, pypi, nuget and oci packages).`,
      );
  }
}

function packageShape(
  entry: ServerJson,
  pkg: Package,
  supplied: Record<string, string> | undefined,
  kept: Readonly<Record<string, string>>,
): GatewayShape {
  if (pkg.transport.type !== 'stdio')
    throw new ImportProblem(
      `'${entry.name}' package '${pkg.identifier}' serves over '${pkg.transport.type}'; Portico launches packages as stdio upstreams only.`,
    );
  const declared = pkg.environmentVariables ?? [];
  const env = values('environment variable', declared, supplied, kept);
  const envNames = declared.map((variable) => variable.name);
  const { command, args } = launcher(entry, pkg, envNames);
  const runtime = argumentValues(pkg.runtimeArguments ?? [], 'runtime');
  const own = argumentValues(pkg.packageArguments ?? [], 'package');
  // npx, uvx and dnx take options that run or fetch other code than the package (npx --call,
  // uvx --with or --index-url): an entry's runtime arguments would choose what runs.
  if (pkg.registryType !== 'oci' && runtime.length > 0)
    throw new ImportProblem(
      `'${entry.name}' package '${pkg.identifier}' has runtime arguments (${runtime.join(' ').slice(0, 200)}), options of the launcher itself, which could make it run other code than the package; Portico does not import them (create the stdio gateway by hand after reviewing them).`,
    );
  // docker run's options go before the image.
  const launched =
    pkg.registryType === 'oci'
      ? [...args.slice(0, -1), ...runtime, args.at(-1)!, ...own]
      : [...args, ...own];
  if (launched.length > MAX_STDIO_ARGS || launched.some((arg) => arg.length > MAX_STDIO_ARG))
    throw new ImportProblem(
      `'${entry.name}' package '${pkg.identifier}' would launch with ${launched.length} arguments; a stdio gateway takes at most ${MAX_STDIO_ARGS} of at most ${MAX_STDIO_ARG} characters each.`,
    );
  return {
    transport: 'stdio',
    command,
    args: launched,
    env,
    envNames,
    registryType: pkg.registryType,
  };
}

function argumentValues(list: readonly Argument[], kind: string): string[] {
  return list.flatMap((argument) => {
    const value = argument.value ?? argument.default;
    if (value === undefined) {
      if (argument.isRequired)
        throw new ImportProblem(
          `A required ${kind} argument (${argument.name ?? argument.valueHint ?? 'positional'}) has no value Portico could pass.`,
        );
      return [];
    }
    if (/\{[^{}]*\}/.test(value))
      throw new ImportProblem(
        `The ${kind} argument '${value}' needs a value filled in, which Portico does not ask for.`,
      );
    if (argument.type === 'named') return argument.name ? [argument.name, value] : [value];
    return [value];
  });
}

/**
 * The values of declared headers or environment variables: given ones, then the entry's fixed
 * ones, then those kept from before, then the entry's defaults. A required one with no value is
 * refused; a given name the entry does not declare too (a typo would otherwise be sent silently).
 * Null when none was given and every value is kept.
 */
function values(
  what: string,
  declared: readonly KeyValueInput[],
  supplied: Record<string, string> | undefined,
  kept: Readonly<Record<string, string>>,
): Record<string, string> | null {
  const names = declared.map((input) => input.name);
  for (const name of Object.keys(supplied ?? {}))
    if (!names.some((declaredName) => declaredName.toLowerCase() === name.toLowerCase()))
      throw new ImportProblem(
        `The entry declares no ${what} '${name}' (it declares: ${namesOf(names)}).`,
      );
  if (
    supplied === undefined &&
    declared.every((input) => !input.isRequired || named(kept, input.name) !== undefined) &&
    Object.keys(kept).length > 0
  )
    return null;
  const result: Record<string, string> = {};
  for (const input of declared) {
    const given = named(supplied ?? {}, input.name);
    const value = given ?? input.value ?? named(kept, input.name) ?? input.default;
    if (value === undefined) {
      if (input.isRequired)
        throw new ImportProblem(
          `The ${what} '${input.name}' is required${describe(input.description)}: give its value.`,
        );
      continue;
    }
    if (
      input.choices &&
      input.choices.length > 0 &&
      given !== undefined &&
      !input.choices.includes(given)
    )
      throw new ImportProblem(
        `The ${what} '${input.name}' must be one of: ${input.choices.join(', ')}.`,
      );
    result[input.name] = value;
  }
  return result;
}

/** The value of `name` in `values`, its case aside (header names are case-blind). */
function named(values: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.entries(values).find(([key]) => key.toLowerCase() === name.toLowerCase())?.[1];
}

function describe(description: string | undefined): string {
  return description ? ` (${description.slice(0, 200)})` : '';
}

function namesOf(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.join(', ');
}

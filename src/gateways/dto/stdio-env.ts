import { registerDecorator, type ValidationArguments } from 'class-validator';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Variables that choose or inject the code a process runs, rather than configure the server it
 * is: the search path (PATH picks which binary an allowed command name starts), the dynamic
 * loader's, and those the runtimes and launchers Portico may start read at their own start
 * (node, npm and npx, Python and uv, pip, Perl, Ruby, the JVM, .NET, docker, shells). With any of
 * them, a command on STDIO_COMMANDS could run other code than its own, so they are refused in
 * every stdio gateway's `env`, whoever or whatever (a registry entry, a document) states them.
 * Matched without regard to case; NODE_ENV, PYTHONUNBUFFERED and PYTHONIOENCODING only
 * configure, and pass.
 */
const LAUNCH_VARIABLE =
  /^(PATH|IFS|ENV|BASH_ENV|BASH_FUNC_.*|SHELLOPTS|PS4|LD_.*|DYLD_.*|NODE_(?!ENV$).*|NPM_.*|NPX_.*|COREPACK_.*|PYTHON(?!UNBUFFERED$|IOENCODING$).*|UV_.*|PIP_.*|PERL5.*|PERLLIB|RUBY.*|GEM_.*|BUNDLE_.*|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|DOTNET_.*|CORECLR_.*|COMPLUS_.*|DOCKER_.*|GIT_.*|HOME|XDG_CONFIG_HOME|XDG_DATA_HOME)$/i;

export function envMapProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return 'must be an object';
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length > 64) return 'must contain at most 64 variables';
  for (const [name, variable] of entries) {
    if (!ENV_NAME.test(name)) return `has an invalid variable name '${name}'`;
    if (LAUNCH_VARIABLE.test(name))
      return `may not set '${name}': it chooses the code the process runs, which STDIO_COMMANDS decides`;
    if (typeof variable !== 'string' || variable.length > 8192 || variable.includes('\0'))
      return `variable '${name}' must be a string of at most 8192 characters`;
  }
  return null;
}

/** Environment variables of a stdio process: names a shell would accept, string values. */
export function IsEnvMap() {
  return (target: object, propertyName: string) =>
    registerDecorator({
      name: 'isEnvMap',
      target: target.constructor,
      propertyName,
      validator: {
        validate: (value: unknown) => envMapProblem(value) === null,
        defaultMessage: (args: ValidationArguments) =>
          `${args.property} ${envMapProblem(args.value)}`,
      },
    });
}

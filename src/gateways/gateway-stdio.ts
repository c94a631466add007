import { seal, unseal } from '../common/secret-box';
import { type StdioLaunch } from '../upstream/transport/stdio/stdio-process';
import { type Gateway } from './gateway.entity';

/** The stored form of a stdio environment: names in clear, values sealed. */
export interface SealedStdioEnv {
  stdioEnvNames: string[] | null;
  stdioEnv: string | null;
}

export function sealStdioEnv(key: Buffer, env: Record<string, string>): SealedStdioEnv {
  const names = Object.keys(env);
  return names.length === 0
    ? { stdioEnvNames: [], stdioEnv: null }
    : { stdioEnvNames: names, stdioEnv: seal(key, JSON.stringify(env)) };
}

/** How a stdio gateway is launched, its environment opened; null for HTTP gateways. */
export function stdioLaunchOf(
  key: Buffer,
  gateway: Pick<Gateway, 'transport' | 'stdioCommand' | 'stdioArgs' | 'stdioCwd' | 'stdioEnv'>,
): StdioLaunch | null {
  if (gateway.transport !== 'stdio' || gateway.stdioCommand === null) return null;
  return {
    command: gateway.stdioCommand,
    args: gateway.stdioArgs ?? [],
    env:
      gateway.stdioEnv === null
        ? {}
        : (JSON.parse(unseal(key, gateway.stdioEnv)) as Record<string, string>),
    cwd: gateway.stdioCwd,
  };
}

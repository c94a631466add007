import { readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { z } from 'zod';
import { DEPLOYMENT_SETTINGS } from '../config/settings/deployment-settings';
import { TUNING_KNOBS } from '../config/settings/tuning-knobs';
import { ConfigDocumentErrorCode, ConfigDocumentException } from './config-document.exception';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * A credential named, never written: an environment variable of the Portico process, or a file
 * under CONFIG_SECRETS_DIR (a mounted Kubernetes secret). The value is read where the document is
 * applied, so it lives only in the deployment's secrets and, sealed, in the database.
 */
export const secretRefSchema = z.union([
  z
    .object({
      fromEnv: z
        .string()
        .regex(ENV_NAME)
        .describe('Name of an environment variable of the Portico process that holds the value.'),
    })
    .strict(),
  z
    .object({
      fromFile: z
        .string()
        .min(1)
        .max(1024)
        .describe(
          'Path of a file that holds the value (trailing newline removed), under CONFIG_SECRETS_DIR; relative paths are taken from there.',
        ),
    })
    .strict(),
]);

export type SecretRef = z.infer<typeof secretRefSchema>;

/**
 * What Portico and its runtime read for themselves are not credentials for an upstream: naming
 * one would send, say, the encryption key to whichever URL the document names. Every variable
 * of Portico's settings (from their registry, so that a new one is covered as it is added), the
 * old variables of the tuning knobs, `PORTICO_*`, OpenTelemetry's exporter settings
 * (`OTEL_EXPORTER_OTLP_HEADERS` carries a tracing vendor's key) and the PostgreSQL driver's
 * (`PGPASSWORD` and the other `PG…` of libpq, which have no underscore: a gateway `pg`'s
 * exported `PG_TOKEN` is not one of them).
 */
const OWN_VARIABLES: ReadonlySet<string> = new Set([
  ...DEPLOYMENT_SETTINGS.map(({ env }) => env),
  ...TUNING_KNOBS.flatMap(({ env }) => (env ? [env] : [])),
]);
const RUNTIME_VARIABLES = /^(PORTICO_[A-Z0-9_]*|OTEL_EXPORTER_[A-Z0-9_]+|PG[A-Z]+)$/;

function isOwnVariable(name: string): boolean {
  return OWN_VARIABLES.has(name) || RUNTIME_VARIABLES.test(name);
}

export interface SecretSource {
  env: NodeJS.ProcessEnv;
  secretsDir: string;
}

/** The value a reference names; a missing or refused one fails the whole apply (422). */
export function resolveSecret(ref: SecretRef, source: SecretSource, where: string): string {
  if ('fromEnv' in ref) {
    if (isOwnVariable(ref.fromEnv))
      throw secretProblem(where, `may not name Portico's own setting ${ref.fromEnv}`);
    const value = source.env[ref.fromEnv];
    if (value === undefined || value === '')
      throw secretProblem(where, `names the environment variable ${ref.fromEnv}, which is not set`);
    return value;
  }
  const dir = resolve(source.secretsDir);
  const path = resolve(dir, ref.fromFile);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    throw secretProblem(where, `names the file ${ref.fromFile}, which cannot be read`);
  }
  const inside = relative(realpathOr(dir), real);
  if (inside === '' || inside.startsWith('..') || isAbsolute(inside))
    throw secretProblem(where, `names a file outside CONFIG_SECRETS_DIR (${dir})`);
  // The pod's own credentials (its service account's token, under /var/run/secrets by default)
  // are Portico's, as its own variables are: never an upstream's.
  if (inside.split(sep)[0] === 'kubernetes.io')
    throw secretProblem(where, `may not name the pod's own credentials (${ref.fromFile})`);
  let value: string;
  try {
    const stat = statSync(real);
    if (!stat.isFile() || stat.size > SECRET_FILE_BYTES)
      throw secretProblem(where, `names ${ref.fromFile}, which is not a file of at most 64 KiB`);
    value = readFileSync(real, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    if (error instanceof ConfigDocumentException) throw error;
    throw secretProblem(where, `names the file ${ref.fromFile}, which cannot be read`);
  }
  if (value === '') throw secretProblem(where, `names the file ${ref.fromFile}, which is empty`);
  return value;
}

/** The most a secret file may hold: a token or a key, never a device or a log. */
const SECRET_FILE_BYTES = 64 * 1024;

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function secretProblem(where: string, reason: string): ConfigDocumentException {
  return new ConfigDocumentException(
    ConfigDocumentErrorCode.SecretUnavailable,
    `${where} ${reason}.`,
  );
}

import { readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, relative, resolve } from 'node:path';
import { z } from 'zod';
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
 * Portico's own settings are not credentials for an upstream: naming one would send, say, the
 * encryption key to whichever URL the document names.
 */
const PORTICO_SETTINGS =
  /^(DATABASE_URL|ENCRYPTION_KEY|JWT_SECRET|ADMIN_PASSWORD|ADMIN_USERNAME|OIDC_CLIENT_SECRET|EMBEDDINGS_API_KEY|METRICS_TOKEN|REDIS_URL|CONFIG_FILE|CONFIG_SECRETS_DIR|PORTICO_[A-Z0-9_]*)$/;

export interface SecretSource {
  env: NodeJS.ProcessEnv;
  secretsDir: string;
}

/** The value a reference names; a missing or refused one fails the whole apply (422). */
export function resolveSecret(ref: SecretRef, source: SecretSource, where: string): string {
  if ('fromEnv' in ref) {
    if (PORTICO_SETTINGS.test(ref.fromEnv))
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
  let value: string;
  try {
    value = readFileSync(real, 'utf8').replace(/\r?\n$/, '');
  } catch {
    throw secretProblem(where, `names the file ${ref.fromFile}, which cannot be read`);
  }
  if (value === '') throw secretProblem(where, `names the file ${ref.fromFile}, which is empty`);
  return value;
}

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

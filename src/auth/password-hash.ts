import { randomBytes, scrypt, type ScryptOptions, timingSafeEqual } from 'node:crypto';
import {
  DEFAULT_HASH_COST,
  parametersOfCost,
  type ScryptParameters,
} from '../common/scrypt-parameters';

export const CURRENT_PARAMETERS: ScryptParameters = parametersOfCost(DEFAULT_HASH_COST);

/** Node's scrypt defaults, which the first stored format (`scrypt$salt$key`) used implicitly. */
const LEGACY_PARAMETERS: ScryptParameters = { N: 2 ** 14, r: 8, p: 1 };

/** Parameters a stored hash may name; more would let a forged row make a login exhaust memory. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;
const KEY_BYTES = 32;
const SALT_BYTES = 16;

/**
 * At most this many hashes are computed at once: each takes 128 MiB, and a burst of logins must
 * not take the process's memory with it. Later ones wait their turn.
 */
const CONCURRENT_HASHES = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function derive(
  password: string,
  salt: Buffer,
  keylen: number,
  params: ScryptParameters,
): Promise<Buffer> {
  if (running >= CONCURRENT_HASHES) await new Promise<void>((resolve) => waiting.push(resolve));
  running += 1;
  try {
    const options: ScryptOptions = {
      N: params.N,
      r: params.r,
      p: params.p,
      maxmem: 256 * params.N * params.r + 1024 * 1024,
    };
    return await new Promise<Buffer>((resolve, reject) =>
      scrypt(password, salt, keylen, options, (error, key) =>
        error ? reject(error) : resolve(key),
      ),
    );
  } finally {
    running -= 1;
    waiting.shift()?.();
  }
}

/** `scrypt$N=<N>,r=<r>,p=<p>$<salt b64>$<key b64>` */
export async function hashPassword(
  password: string,
  params: ScryptParameters = CURRENT_PARAMETERS,
): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, KEY_BYTES, params);
  return `scrypt$N=${params.N},r=${params.r},p=${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

interface Parsed {
  params: ScryptParameters;
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | null {
  const parts = stored.split('$');
  let encoded: [string, string, string | undefined];
  if (parts.length === 3) encoded = [parts[1]!, parts[2]!, undefined];
  else if (parts.length === 4) encoded = [parts[2]!, parts[3]!, parts[1]];
  else return null;
  if (parts[0] !== 'scrypt') return null;
  const [salt, key, spec] = encoded;
  let params = LEGACY_PARAMETERS;
  if (spec !== undefined) {
    const match = /^N=(\d+),r=(\d+),p=(\d+)$/.exec(spec);
    if (!match) return null;
    params = { N: Number(match[1]), r: Number(match[2]), p: Number(match[3]) };
    const powerOfTwo = params.N > 1 && (params.N & (params.N - 1)) === 0;
    if (!powerOfTwo || params.N > MAX_N || params.r < 1 || params.r > MAX_R) return null;
    if (params.p < 1 || params.p > MAX_P) return null;
  }
  const keyBytes = Buffer.from(key, 'base64');
  if (!salt || keyBytes.length < 16) return null;
  return { params, salt: Buffer.from(salt, 'base64'), key: keyBytes };
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parse(stored);
  if (!parsed) return false;
  const actual = await derive(password, parsed.salt, parsed.key.length, parsed.params);
  return timingSafeEqual(actual, parsed.key);
}

/** Whether a stored hash is of an older format or weaker parameters than the current ones. */
export function needsRehash(
  stored: string,
  current: ScryptParameters = CURRENT_PARAMETERS,
): boolean {
  const parsed = parse(stored);
  if (!parsed || stored.split('$').length !== 4) return true;
  const { N, r, p } = parsed.params;
  return N < current.N || r < current.r || p < current.p;
}

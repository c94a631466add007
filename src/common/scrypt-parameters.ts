export interface ScryptParameters {
  /** CPU and memory cost, a power of two. */
  N: number;
  r: number;
  p: number;
}

/** The parameters of PASSWORD_HASH_COST: N = 2^cost, with OWASP's r = 8 and p = 1. */
export function parametersOfCost(cost: number): ScryptParameters {
  return { N: 2 ** cost, r: 8, p: 1 };
}

/**
 * OWASP's scrypt guidance (Password Storage Cheat Sheet): N = 2^17, r = 8, p = 1, which needs
 * 128 MiB per hash; PASSWORD_HASH_COST's default. Stored hashes carry their parameters, so
 * raising the cost later upgrades each account at its next login.
 */
export const DEFAULT_HASH_COST = 17;

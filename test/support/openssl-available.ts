import { spawnSync } from 'node:child_process';

/**
 * Whether this machine has the openssl command line the https test servers need (document-server:
 * their certificate). Without it their suites are skipped, unless REQUIRE_OPENSSL is set (CI sets
 * it), where a missing openssl must fail instead.
 */
export const opensslAvailable =
  spawnSync('openssl', ['version']).status === 0 || Boolean(process.env.REQUIRE_OPENSSL);

export const OPENSSL_MISSING =
  'HTTPS document tests skipped: the openssl command is not installed (apt-get install -y openssl).';

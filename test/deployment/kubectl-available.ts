import { spawnSync } from 'node:child_process';

/**
 * Whether this machine can render the Kustomize overlays. Without kubectl those tests are skipped,
 * unless REQUIRE_KUBECTL is set (CI sets it), where a missing kubectl must fail instead.
 */
export const kubectlAvailable =
  spawnSync('kubectl', ['version', '--client'], { stdio: 'ignore' }).status === 0 ||
  Boolean(process.env.REQUIRE_KUBECTL);

export const KUBECTL_MISSING =
  'Kubernetes manifest tests skipped: kubectl is not installed (apt-get install -y kubectl).';

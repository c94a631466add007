import { policyToolOf, type PolicyTool } from '../../src/policies/policy-tool';

/** A tool's policy record for specs: canonical name `name`, listed as `listedName`. */
export function policyTool(
  name: string,
  extra: Partial<PolicyTool> & { gatewaySlug?: string; originalName?: string } = {},
): PolicyTool {
  const { gatewaySlug = 'gw', originalName = name, ...rest } = extra;
  return {
    ...policyToolOf(
      {
        id: `id-${name}`,
        gatewaySlug,
        originalName,
        title: null,
        annotations: null,
        contentHash: `hash-${name}`,
        pinnedHash: null,
      },
      name,
      name,
    ),
    ...rest,
  };
}

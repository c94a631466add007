import 'reflect-metadata';
import { checkUpstream, type ToolCall, type UpstreamCheckPlan } from '../../src/cli/upstream-check';

// The client the MCP conformance suite runs for each client scenario, as
// `<command> <server URL>` with MCP_CONFORMANCE_SCENARIO (and MCP_CONFORMANCE_CONTEXT) set. It is
// `portico upstream` (src/cli/upstream-check.ts: the gateway's own connector, era probe, OAuth)
// with what a scenario's caller asks of Portico: which tools to call with which arguments, how to
// answer the upstream's elicitations. This file knows the scenarios; the command does not. Where a
// person would open the provider's page, this fetches it, as a browser that consents at once.

type Context = Record<string, unknown>;

function planFor(scenario: string, url: string, context: Context): UpstreamCheckPlan {
  const plan: UpstreamCheckPlan = {
    url,
    transport: 'streamable-http',
    credentials: { type: 'none' },
    calls: [],
    reads: [],
    prompts: [],
    redirectPort: 0,
  };
  if (scenario === 'auth/client-credentials-basic')
    return {
      ...plan,
      credentials: {
        type: 'oauth',
        mode: 'client-credentials',
        clientId: String(context.client_id),
        clientSecret: String(context.client_secret),
      },
    };
  if (scenario.startsWith('auth/'))
    return {
      ...plan,
      credentials: {
        type: 'oauth',
        mode: 'shared',
        ...(scenario === 'auth/pre-registration'
          ? { clientId: String(context.client_id), clientSecret: String(context.client_secret) }
          : {}),
      },
      calls: [{ name: 'test-tool' }],
    };
  switch (scenario) {
    case 'sse-retry':
      return { ...plan, calls: [{ name: 'test_reconnection' }] };
    case 'tools_call':
      return { ...plan, calls: [{ name: 'add_numbers', arguments: { a: 2, b: 3 } }] };
    case 'http-standard-headers':
      return {
        ...plan,
        calls: (catalogue) => everyTool(catalogue.tools),
        reads: ['file:///path/to/file%20name.txt', 'https://example.com/resource?id=123'],
        prompts: [{ name: 'test_prompt' }],
      };
    case 'http-custom-headers':
      return { ...plan, calls: (context.toolCalls as ToolCall[] | undefined) ?? [] };
    case 'http-invalid-tool-headers':
      // A caller that tries every tool listed: Portico must leave the invalid ones alone.
      return { ...plan, calls: (catalogue) => everyTool(catalogue.tools) };
    case 'sep-2322-client-request-state':
      return {
        ...plan,
        calls: [
          { name: 'test_mrtr_echo_state' },
          { name: 'test_mrtr_unrelated' },
          { name: 'test_mrtr_no_state' },
          { name: 'test_mrtr_no_result_type' },
        ],
        elicitation: { confirmed: true },
      };
    case 'json-schema-2020-12-preservation':
      return {
        ...plan,
        calls: (catalogue) => {
          const focal = (catalogue.tools as { name?: string; inputSchema?: unknown }[]).find(
            (tool) => tool.name === 'json_schema_2020_12_tool',
          );
          return [{ name: 'json_schema_echo', arguments: { schema: focal?.inputSchema ?? null } }];
        },
      };
    default:
      // Connect and read the catalogue, as a sync does (request-metadata, json-schema-ref-no-deref).
      return plan;
  }
}

function everyTool(tools: unknown[]): ToolCall[] {
  return tools.map((tool) => ({ name: String((tool as { name?: unknown }).name) }));
}

async function main(): Promise<void> {
  const url = process.argv[2];
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  if (!url || !scenario)
    throw new Error('usage: MCP_CONFORMANCE_SCENARIO=<scenario> conformance-client <server URL>');
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as Context;
  const report = await checkUpstream(planFor(scenario, url, context), process.env, {
    authorize: async (address) => {
      // The provider's page redirects at once to Portico's loopback callback, which answers.
      const response = await fetch(address);
      await response.body?.cancel();
    },
    note: (line) => process.stderr.write(`portico: ${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  const failed = [...report.calls, ...report.reads, ...report.promptsGot].filter(
    (step) => step.error !== undefined,
  );
  process.exitCode = failed.length > 0 ? 1 : 0;
}

main().catch((error: unknown) => {
  process.stderr.write(`portico: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});

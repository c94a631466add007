import { type ChaosConfig } from '../config';
import { CallLoad } from '../load';
import { type Row } from '../report';
import { addGateway, chaosUpstream, type Portico, type Scope } from '../world';

export interface Context {
  config: ChaosConfig;
  /** Undone when the scenario ends, however it ends. */
  scope: Scope;
}

export interface Scenario {
  id: number;
  title: string;
  /** Longest it may run before it counts as hung, from the configuration. */
  budgetMs(config: ChaosConfig): number;
  run(context: Context): Promise<Row[]>;
}

/** An upstream process registered as gateway `name`, so its tools are `<name>-tool_0` …. */
export async function gateway(
  context: Context,
  portico: Portico,
  name: string,
  via?: (url: string) => Promise<string>,
): Promise<{ url: string; tool: string }> {
  const upstream = await chaosUpstream(context.scope);
  await addGateway(portico, name, via ? await via(upstream.url) : upstream.url);
  return { url: upstream.url, tool: `${name}-tool_1` };
}

/** `sessions` sessions on Portico calling `tool`, stopped when the scenario ends. */
export async function callLoad(
  context: Context,
  portico: Portico,
  tool: string,
  sessions = context.config.loadSessions,
  url = portico.mcpUrl,
): Promise<CallLoad> {
  const { config, scope } = context;
  const load = await CallLoad.start({
    url,
    token: portico.token,
    sessions,
    tool,
    pauseMs: config.callPauseMs,
    timeoutMs: config.callTimeoutMs,
    maxMs: scenarioCeilingMs(config),
  });
  scope.defer('call load', () => load.stop());
  return load;
}

/** No scenario's loop runs longer than this, whatever happens. */
export const scenarioCeilingMs = (config: ChaosConfig) =>
  Math.max(
    config.soakMinutes * 60_000,
    config.outageSeconds * 3000,
    config.slowlorisSeconds * 2000,
  ) + 600_000;

export const describeLoad = (config: ChaosConfig, sessions = config.loadSessions) =>
  `${sessions} sessions calling in a loop (${config.callPauseMs} ms pause)`;

const began = Date.now();

/** A progress line, so a long run shows where it is. */
export function step(message: string): void {
  console.log(`chaos: ${((Date.now() - began) / 1000).toFixed(1).padStart(7)} s  ${message}`);
}

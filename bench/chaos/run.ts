import { loadConfig } from './config';
import { failedToRun, markdown, type Row, writeReport } from './report';
import { type Scenario } from './scenarios/context';
import { postgresOutages } from './scenarios/postgres-outage';
import { redisOutages } from './scenarios/redis-outage';
import { slowloris } from './scenarios/slowloris';
import { greedyClients } from './scenarios/greedy-clients';
import { upstreamFaults } from './scenarios/upstream-faults';
import { capacity } from './scenarios/capacity';
import { killAllChildren, Scope, withTimeout } from './world';

// `npm run chaos`: the fault suite of issue 23. Each scenario starts its own Portico (dist/, as a
// child process) on its own PostgreSQL database, breaks something under load, and prints a row;
// the table goes to stdout and to CHAOS_OUTPUT. Not part of `npm test`.
const SCENARIOS: Scenario[] = [
  ...postgresOutages,
  redisOutages,
  ...upstreamFaults,
  slowloris,
  ...capacity,
  greedyClients,
];

let current: Scope | null = null;

/** Runs the scenarios asked for; the exit code is 1 when any failed. */
async function main(): Promise<number> {
  const config = loadConfig();
  const startedAt = new Date();
  const rows: Row[] = [];
  for (const id of config.scenarios) {
    const scenario = SCENARIOS.find((candidate) => candidate.id === id);
    if (!scenario) continue;
    console.log(`chaos: ${id}. ${scenario.title} …`);
    const scope = new Scope();
    current = scope;
    const began = Date.now();
    try {
      rows.push(
        ...(await withTimeout(
          scenario.run({ config, scope }),
          scenario.budgetMs(config),
          `scenario ${id}`,
        )),
      );
    } catch (error) {
      rows.push(failedToRun(String(id), scenario.title, error));
    } finally {
      await scope.close();
      current = null;
    }
    const last = rows.at(-1);
    console.log(
      `chaos: ${id} done in ${((Date.now() - began) / 1000).toFixed(0)} s: ${last?.verdict ?? ''} ${last?.why.join('; ') ?? ''}`,
    );
  }
  const text = markdown(rows, config, startedAt, new Date());
  console.log(`\n${text}`);
  writeReport(config.outputFile, text);
  console.log(`chaos: written to ${config.outputFile}`);
  return rows.some((r) => r.verdict === 'FAIL') ? 1 : 0;
}

process.on('exit', killAllChildren);
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    console.error(`chaos: ${signal}, cleaning up`);
    void (current?.close() ?? Promise.resolve()).finally(() => process.exit(130));
  });

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);

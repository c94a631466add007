import { startPortico } from './run-conformance';
import { runServerScenario, type ScenarioVerdict } from './extension-scenarios';
import { type SkillsServer, startSkillsServer } from '../fixtures/skills-server';

// The conformance suite's Skills extension scenarios (SEP-2640, server side), each run directly
// against the SDK v2 skills fixture and through Portico (a virtual server with the fixture's
// skills), on the 2026-07-28 wire the suite speaks by default. Every scenario that passes directly
// must pass through; all three pass directly.

const SCENARIOS = [
  'sep-2640-skills-directory',
  'sep-2640-skills-enumeration',
  'sep-2640-skills-manifest',
];

describe('the Skills extension scenarios, directly and through Portico', () => {
  let fixture: SkillsServer;
  let portico: { url: string; close(): Promise<void> };

  beforeAll(async () => {
    fixture = await startSkillsServer();
    portico = await startPortico(fixture.url);
  }, 60_000);

  afterAll(async () => {
    await portico?.close();
    await fixture?.close();
  });

  it('passes through Portico every scenario that passes directly', async () => {
    const rows: {
      scenario: string;
      direct: ScenarioVerdict | null;
      through: ScenarioVerdict | null;
    }[] = [];
    for (const scenario of SCENARIOS) {
      const direct = await runServerScenario(fixture.url, scenario);
      const through = await runServerScenario(portico.url, scenario);
      if (through.verdict?.failed !== 0) console.log(through.output.slice(-4000));
      rows.push({ scenario, direct: direct.verdict, through: through.verdict });
    }
    console.log(
      rows
        .map(
          ({ scenario, direct, through }) =>
            `${scenario}: direct ${direct?.passed}/${direct?.total}, through ${through?.passed}/${through?.total}`,
        )
        .join('\n'),
    );
    for (const { direct, through } of rows) {
      expect(direct).not.toBeNull();
      expect(direct!.failed).toBe(0);
      expect(direct!.passed).toBeGreaterThan(0);
      expect(through).toEqual(direct);
    }
  }, 240_000);
});

import { harnessVerdict } from './harness-run';
import { describeEmbedded } from '../support/describe-on-postgres';

// The official MCP conformance suite's client scenarios with Portico as the client, both
// requirement sets, as `npm run conformance -- client` runs them: the suite comes from the npm
// registry through npx (with Node 22) and runs `portico upstream` (the gateway's own upstream
// code) against a test server per scenario. Every scored scenario must pass, but those the harness
// leaves out as a downstream client's part (client-conformance.ts, EXCLUDED).

describeEmbedded('the MCP conformance suite’s client scenarios, Portico the client', () => {
  it.each([
    ['2026-07-28', 32],
    ['2025-11-25', 17],
  ])(
    'passes every scored scenario of --requirements %s (%i)',
    async (requirements, total) => {
      expect(await harnessVerdict(['client'], requirements, 'Portico as the client')).toEqual([
        total,
        total,
      ]);
    },
    300_000,
  );
});

import { harnessVerdicts } from './harness-run';

// The official MCP conformance suite's client scenarios with Portico as the client, both
// requirement sets in one run, as `npm run conformance -- client` runs them: the suite comes from
// the npm registry through npx (with Node 22) and runs `portico upstream` (the gateway's own
// upstream code) against a test server per scenario. Every scored scenario must pass, but those
// the harness leaves out as a downstream client's part (client-conformance.ts, EXCLUDED).

describe('the MCP conformance suite’s client scenarios, Portico the client', () => {
  it('passes every scored scenario of --requirements 2026-07-28 (32) and 2025-11-25 (17)', async () => {
    expect(
      await harnessVerdicts(['client'], ['2026-07-28', '2025-11-25'], 'Portico as the client'),
    ).toEqual({ '2026-07-28': [32, 32], '2025-11-25': [17, 17] });
  }, 400_000);
});

import { harnessVerdicts } from './harness-run';

// The official MCP conformance suite through Portico, both requirement sets, as
// `npm run conformance` runs them: the suite comes from the npm registry through npx (with Node 22),
// the upstream is the test suite's own dual-era fixture, and one Portico serves both sets. Every
// scored scenario must pass.

describe('the MCP conformance suite through Portico', () => {
  it('passes every scored scenario of --requirements 2026-07-28 (37) and 2025-11-25 (30)', async () => {
    expect(await harnessVerdicts([], ['2026-07-28', '2025-11-25'], 'through Portico')).toEqual({
      '2026-07-28': [37, 37],
      '2025-11-25': [30, 30],
    });
  }, 400_000);
});

import { harnessVerdict } from './harness-run';
import { describeEmbedded } from '../support/describe-on-postgres';

// The official MCP conformance suite through Portico, both requirement sets, as
// `npm run conformance` runs it: the suite comes from the npm registry through npx (with Node 22),
// the upstream is the test suite's own dual-era fixture. Every scored scenario must pass.

describeEmbedded('the MCP conformance suite through Portico', () => {
  it.each([
    ['2026-07-28', 37],
    ['2025-11-25', 30],
  ])(
    'passes every scored scenario of --requirements %s (%i)',
    async (requirements, total) => {
      expect(await harnessVerdict([], requirements, 'through Portico')).toEqual([total, total]);
    },
    300_000,
  );
});

import { fresh, speaksOnly, verdictOfDiscover, verdictOfUnsupported } from './protocol-era';

describe('era verdicts', () => {
  it('takes a DiscoverResult offering 2026-07-28 for modern, whatever else it lists', () => {
    expect(verdictOfDiscover({ supportedVersions: ['2099-01-01', '2026-07-28'] })).toMatchObject({
      era: '2026-07-28',
      version: '2026-07-28',
      supportedVersions: ['2099-01-01', '2026-07-28'],
      extensions: [],
    });
  });

  it('judges every version of a long list, and keeps those Portico speaks among the 32 it keeps', () => {
    const others = Array.from({ length: 100_000 }, (_, i) => `2099-01-${i}`);
    const verdict = verdictOfDiscover({
      supportedVersions: [...others, 'x'.repeat(65), '2025-06-18', '2026-07-28', '2026-07-28'],
    });
    expect(verdict).toMatchObject({ era: '2026-07-28', version: '2026-07-28' });
    expect(verdict.supportedVersions).toEqual([...others.slice(0, 30), '2025-06-18', '2026-07-28']);
    const session = verdictOfUnsupported({ supported: [...others, '2025-06-18'] });
    expect(session).toMatchObject({ era: '2025', version: '2025-06-18' });
    expect(session!.supportedVersions).toHaveLength(32);
    expect(session!.supportedVersions.at(-1)).toBe('2025-06-18');
  });

  it('keeps the names of the extensions a modern upstream declared, and no more than 64', () => {
    const extensions = Object.fromEntries(
      Array.from({ length: 70 }, (_, i) => [`example.com/ext-${i}`, {}]),
    );
    const verdict = verdictOfDiscover({
      supportedVersions: ['2026-07-28'],
      capabilities: { extensions: { 'io.modelcontextprotocol/tasks': {}, ...extensions } },
    });
    expect(verdict.extensions).toHaveLength(64);
    expect(verdict.extensions![0]).toBe('io.modelcontextprotocol/tasks');
  });

  it('decides a -32022 by its supported list: modern, else 2025, else incompatible', () => {
    expect(verdictOfUnsupported({ supported: ['2026-07-28'] })?.era).toBe('2026-07-28');
    expect(verdictOfUnsupported({ supported: ['2025-06-18'] })).toMatchObject({
      era: '2025',
      version: '2025-06-18',
    });
    expect(verdictOfUnsupported({ supported: ['2099-01-01'] })).toMatchObject({
      era: 'incompatible',
      version: null,
    });
    expect(verdictOfUnsupported({ requested: 'x' })).toBeNull();
  });

  it('says what the upstream speaks and what Portico does', () => {
    const said = speaksOnly({ supportedVersions: ['2099-01-01'] });
    expect(said).toMatch(
      /^the upstream speaks only 2099-01-01; Portico speaks 2026-07-28, 2025-11-25/,
    );
  });

  it('expires a verdict after its time to live', () => {
    const checked = new Date(1_000_000);
    expect(fresh(checked, 1000, 1_000_999)).toBe(true);
    expect(fresh(checked, 1000, 1_001_000)).toBe(false);
  });
});

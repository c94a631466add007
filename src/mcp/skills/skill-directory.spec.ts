import { type ServedSkill, SkillDirectory } from './skill-directory';

function served(gatewaySlug: string, uri: string, clientUri: string): ServedSkill {
  return { gatewaySlug, clientUri, entry: { uri } } as ServedSkill;
}

describe('SkillDirectory', () => {
  const pdf = served('docs', 'skill://pdf/SKILL.md', 'docs+skill://pdf/SKILL.md');
  const nested = served('ops', 'skill://team/notes/SKILL.md', 'ops+skill://team/notes/SKILL.md');
  const directory = new SkillDirectory({ original: false }, [pdf, nested]);

  it('finds the skill that holds a file, a subdirectory or the skill itself', () => {
    expect(directory.skill('docs+skill://pdf/SKILL.md')).toBe(pdf);
    expect(directory.owner('docs+skill://pdf/references/deep/FORMS.md')).toBe(pdf);
    expect(directory.owner('docs+skill://pdf')).toBe(pdf);
    expect(directory.owner('ops+skill://team/notes/x.md')).toBe(nested);
    expect(directory.owner('ops+skill://team/other.md')).toBeUndefined();
    expect(directory.owner('skill://pdf/SKILL.md')).toBeUndefined();
    expect(directory.owner('file:///etc/passwd')).toBeUndefined();
    expect(directory.owner(`docs+skill://pdf${'/a'.repeat(100)}`)).toBeUndefined();
    // A server may resolve dot segments to another skill's file.
    expect(directory.owner('docs+skill://pdf/../other/SKILL.md')).toBeUndefined();
    expect(directory.owner('docs+skill://pdf/%2E%2e/other/SKILL.md')).toBeUndefined();
    expect(directory.owner('docs+skill://pdf/./SKILL.md')).toBeUndefined();
  });

  it('maps client URIs to the upstream’s and back', () => {
    expect(directory.upstreamUri(pdf, 'docs+skill://pdf/assets/logo.png')).toBe(
      'skill://pdf/assets/logo.png',
    );
    expect(directory.clientUri(pdf, 'skill://pdf/assets/logo.png')).toBe(
      'docs+skill://pdf/assets/logo.png',
    );
    expect(directory.declared).toBe(true);
    expect(new SkillDirectory({ original: true }, []).declared).toBe(false);
  });

  it("knows every skill's directory by gateway and upstream URI, served here or not", () => {
    const claims = new Map([
      ['gw-docs', new Set(['skill://pdf', 'skill://team/notes'])],
      ['gw-files', new Set(['files://pdf'])],
      ['gw-declared', new Set<string>()],
    ]);
    const all = new SkillDirectory({ original: false }, [], claims);
    expect(all.claimed('gw-docs', 'skill://pdf/SKILL.md')).toBe(true);
    expect(all.claimed('gw-docs', 'skill://pdf/references/FORMS.md')).toBe(true);
    expect(all.claimed('gw-docs', 'skill://team/notes/x.md')).toBe(true);
    // On a gateway with skills, every skill:// URI is a skill's: stored, or not yet synced.
    expect(all.claimed('gw-docs', 'skill://pdf-tools/SKILL.md')).toBe(true);
    expect(all.claimed('gw-docs', 'SKILL://team/other.md')).toBe(true);
    expect(all.claimed('gw-declared', 'skill://new/SKILL.md')).toBe(true);
    expect(all.claimed('gw-docs', 'file:///notes.md')).toBe(false);
    expect(all.claimed('gw-files', 'files://pdf/SKILL.md')).toBe(true);
    expect(all.claimed('gw-files', 'FILES://pdf/%53KILL.md')).toBe(true);
    expect(all.claimed('gw-files', 'files://pdf-tools/../pdf/SKILL.md')).toBe(true);
    expect(all.claimed('gw-files', 'files://pdf-tools/SKILL.md')).toBe(false);
    expect(all.claimed('gw-other', 'skill://pdf/SKILL.md')).toBe(false);
    expect(all.owner('docs+skill://pdf/SKILL.md')).toBeUndefined();
    expect(directory.claimed('gw-docs', 'skill://pdf/SKILL.md')).toBe(false);
  });
});

import { createHash } from 'node:crypto';
import {
  admitSkill,
  clientEntry,
  clientSkillUri,
  manifestHash,
  mergedCacheHint,
  type SkillRefusal,
  skillNameOf,
  type UpstreamSkill,
  upstreamSkillUri,
} from './skill-manifest';
import { pinAfterSync } from './skills.applier';

const digest = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`;

function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    uri: 'skill://pdf-processing/SKILL.md',
    frontmatter: { name: 'pdf-processing', description: 'PDFs' },
    resources: [
      { uri: 'skill://pdf-processing/SKILL.md', digest: digest('a'), size: 1 },
      { uri: 'skill://pdf-processing/references/FORMS.md', digest: digest('b'), size: 1 },
    ],
    ...overrides,
  };
}

describe('admitSkill', () => {
  it('keeps a valid entry as it came', () => {
    const admitted = admitSkill(entry()) as UpstreamSkill;
    expect(admitted.name).toBe('pdf-processing');
    expect(admitted.resources).toHaveLength(2);
    expect(admitSkill(entry({ resources: 'dynamic' }))).toMatchObject({ resources: 'dynamic' });
  });

  it.each([
    ['no uri', { uri: 42 }, /uri must be/],
    ['a uri not ending in SKILL.md', { uri: 'skill://pdf-processing/README.md' }, /not the URI/],
    [
      'a skill under another scheme, whose directory would hold other resources',
      {
        uri: 'docs://notes/SKILL.md',
        frontmatter: { name: 'notes', description: 'x' },
        resources: 'dynamic',
      },
      /not a skill:\/\/ URI/,
    ],
    [
      'a name unlike the path',
      { frontmatter: { name: 'other', description: 'x' } },
      /last segment/,
    ],
    ['no description', { frontmatter: { name: 'pdf-processing' } }, /description/],
    [
      'a file outside the skill',
      { resources: [{ uri: 'skill://elsewhere/x', digest: digest('x'), size: 1 }] },
      /outside/,
    ],
    [
      'a bad digest',
      { resources: [{ uri: 'skill://pdf-processing/SKILL.md', digest: 'md5:00', size: 1 }] },
      /digest/,
    ],
    [
      'a negative size',
      { resources: [{ uri: 'skill://pdf-processing/SKILL.md', digest: digest('a'), size: -1 }] },
      /size/,
    ],
    [
      'no entry for SKILL.md',
      {
        resources: [
          { uri: 'skill://pdf-processing/references/FORMS.md', digest: digest('b'), size: 1 },
        ],
      },
      /SKILL.md itself/,
    ],
    [
      'too many files',
      {
        resources: Array.from({ length: 513 }, (_, i) => ({
          uri: `skill://pdf-processing/f${i}`,
          digest: digest('x'),
          size: 1,
        })),
      },
      /more than 512/,
    ],
    [
      'a huge frontmatter',
      { frontmatter: { name: 'pdf-processing', description: 'x'.repeat(70_000) } },
      /exceed/,
    ],
    [
      'a NUL in the frontmatter',
      { frontmatter: { name: 'pdf-processing', description: 'PDFs\u0000' } },
      /NUL characters/,
    ],
    ['an unpaired surrogate in a key of _meta', { _meta: { ['k\uD800']: 1 } }, /surrogates/],
    [
      'a NUL in the skill path',
      {
        uri: 'skill://a\u0000b/pdf-processing/SKILL.md',
        resources: [
          { uri: 'skill://a\u0000b/pdf-processing/SKILL.md', digest: digest('a'), size: 1 },
        ],
      },
      /NUL characters/,
    ],
    [
      'an unpaired surrogate in a file URI',
      {
        resources: [
          { uri: 'skill://pdf-processing/SKILL.md', digest: digest('a'), size: 1 },
          { uri: 'skill://pdf-processing/\uDC00.md', digest: digest('b'), size: 1 },
        ],
      },
      /surrogates/,
    ],
  ])('refuses %s', (_what, overrides, reason) => {
    expect((admitSkill(entry(overrides)) as SkillRefusal).reason).toMatch(reason);
  });
});

describe('manifestHash', () => {
  it('changes when any file digest changes, not with the order of the files', () => {
    const skill = admitSkill(entry()) as UpstreamSkill;
    const files = skill.resources as { uri: string; digest: string; size: number }[];
    const reordered = { ...skill, resources: [...files].reverse() };
    expect(manifestHash(reordered)).toBe(manifestHash(skill));
    const changed = {
      ...skill,
      resources: [files[0]!, { ...files[1]!, digest: digest('c') }],
    };
    expect(manifestHash(changed)).not.toBe(manifestHash(skill));
  });
});

describe('skill URIs on a server', () => {
  it('puts the slug before the scheme on a prefixed server, keeping the skill path and name', () => {
    const uri = clientSkillUri({ original: false }, 'docs', 'skill://pdf-processing/SKILL.md');
    expect(uri).toBe('docs+skill://pdf-processing/SKILL.md');
    expect(skillNameOf(uri)).toBe('pdf-processing');
    expect(upstreamSkillUri({ original: false }, uri)).toEqual({
      gatewaySlug: 'docs',
      uri: 'skill://pdf-processing/SKILL.md',
    });
    expect(clientSkillUri({ original: true }, 'docs', 'skill://a/SKILL.md')).toBe(
      'skill://a/SKILL.md',
    );
  });

  it('renames every URI of an entry and nothing else', () => {
    const skill = admitSkill(entry()) as UpstreamSkill;
    const renamed = clientEntry(skill, (uri) => `docs+${uri}`);
    expect(renamed).toEqual({
      uri: 'docs+skill://pdf-processing/SKILL.md',
      frontmatter: skill.frontmatter,
      resources: (skill.resources as { uri: string }[]).map((file) => ({
        ...file,
        uri: `docs+${file.uri}`,
      })),
    });
  });
});

describe('mergedCacheHint', () => {
  const now = Date.parse('2026-11-29T00:00:00Z');
  const at = (ago: number) => new Date(now - ago);

  it('is what is left of the shortest upstream TTL, within Portico’s cap', () => {
    expect(
      mergedCacheHint(
        [
          { ttlMs: 30_000, cacheScope: 'public', readAt: at(10_000) },
          { ttlMs: 50_000, cacheScope: 'public', readAt: at(0) },
        ],
        60_000,
        false,
        now,
      ),
    ).toEqual({ ttlMs: 20_000, cacheScope: 'public' });
    expect(
      mergedCacheHint(
        [{ ttlMs: 600_000, cacheScope: 'public', readAt: at(0) }],
        60_000,
        false,
        now,
      ),
    ).toEqual({ ttlMs: 60_000, cacheScope: 'public' });
  });

  it('is 0 once a TTL ran out or an upstream gave none, and private as narrowly as any', () => {
    expect(
      mergedCacheHint(
        [{ ttlMs: 1_000, cacheScope: 'public', readAt: at(5_000) }],
        60_000,
        false,
        now,
      ),
    ).toEqual({ ttlMs: 0, cacheScope: 'public' });
    expect(
      mergedCacheHint(
        [
          { ttlMs: null, cacheScope: null, readAt: at(0) },
          { ttlMs: 10_000, cacheScope: 'public', readAt: at(0) },
        ],
        60_000,
        false,
        now,
      ),
    ).toEqual({ ttlMs: 0, cacheScope: 'private' });
    expect(
      mergedCacheHint([{ ttlMs: 10_000, cacheScope: 'public', readAt: at(0) }], 60_000, true, now),
    ).toEqual({ ttlMs: 10_000, cacheScope: 'private' });
    expect(mergedCacheHint([], 60_000, false, now)).toEqual({
      ttlMs: 60_000,
      cacheScope: 'public',
    });
  });
});

describe('pinAfterSync', () => {
  it('approves as the gateway’s pinning mode says', () => {
    expect(pinAfterSync('off', { pinnedHash: 'old' }, 'new')).toBe('new');
    expect(pinAfterSync('first-sight', undefined, 'new')).toBe('new');
    expect(pinAfterSync('first-sight', { pinnedHash: 'old' }, 'new')).toBe('old');
    expect(pinAfterSync('review', undefined, 'new')).toBeNull();
    expect(pinAfterSync('review', { pinnedHash: 'old' }, 'new')).toBe('old');
  });
});

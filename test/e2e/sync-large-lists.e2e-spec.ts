import {
  ListPromptsRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { REPORT_ENTRIES, type SyncListReport } from '../../src/sync-report/sync-report';
import { startSkillsServer } from '../fixtures/skills-server';
import { startUpstream, type UpstreamFixture } from '../fixtures/upstream-server';
import { startTestApp, type TestApp } from '../support/test-app';

/**
 * Large lists of prompts, resources and resource templates, pinned at first sight: a sync stores
 * them, holds a change of every pinned one, writes a change of every resource, and removes them.
 * Storing 8,500 prompts failed the whole sync: one statement for all of them passed the protocol's
 * 65,535 parameters.
 */
describe('sync of large lists', () => {
  const PROMPTS = 8_500;
  const OTHERS = 1_000;
  let t: TestApp;
  let fixture: UpstreamFixture;
  const lists = { on: true, version: 1 };
  const COUNTS = { prompts: PROMPTS, 'resource-templates': OTHERS, resources: OTHERS };

  beforeAll(async () => {
    t = await startTestApp();
    const names = (count: number) =>
      Array.from({ length: lists.on ? count : 0 }, (_, i) => `item_${i}`);
    const description = (name: string) => `${name}, version ${lists.version}`;
    fixture = await startUpstream({
      capabilities: { tools: {}, prompts: {}, resources: {} },
      configure: (server) => {
        server.setRequestHandler(ListPromptsRequestSchema, () => ({
          prompts: names(PROMPTS).map((name) => ({ name, description: description(name) })),
        }));
        server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
          resourceTemplates: names(OTHERS).map((name) => ({
            name,
            uriTemplate: `large://${name}/{id}`,
            description: description(name),
          })),
        }));
        server.setRequestHandler(ListResourcesRequestSchema, () => ({
          resources: names(OTHERS).map((name) => ({
            name,
            uri: `large://${name}`,
            size: lists.version,
          })),
        }));
      },
    });
  });

  afterAll(async () => {
    await t.close();
    await fixture.close();
  });

  const one = async (list: string, gatewayId: string) => {
    const page = await t.api().get(`/api/v1/${list}`).query({ gatewayId, limit: 1 }).expect(200);
    return { total: page.body.total as number, first: page.body.items[0] };
  };

  /** How many entries a list of the (bounded) report had in the sync. */
  const whole = (
    section: SyncListReport,
    list: 'added' | 'updated' | 'removed' | 'quarantined',
  ) => {
    expect(section[list]).toHaveLength(REPORT_ENTRIES);
    return section[list]!.length + (section.omitted?.[list] ?? 0);
  };

  it('stores, holds, changes and removes them all', async () => {
    const created = await t
      .api()
      .post('/api/v1/gateways')
      .send({ name: 'Large', url: fixture.url, pinning: 'first-sight' })
      .expect(201);
    const gatewayId = created.body.id as string;
    const first = created.body.lastSyncReport;
    expect(whole(first.prompts, 'added')).toBe(PROMPTS);
    expect(whole(first.resourceTemplates, 'added')).toBe(OTHERS);
    expect(whole(first.resources, 'added')).toBe(OTHERS);
    for (const [list, count] of Object.entries(COUNTS))
      expect((await one(list, gatewayId)).total).toBe(count);

    lists.version = 2;
    const changed = await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
    // Pinned when stored, so each changed prompt and template is held, served as it was pinned.
    expect(whole(changed.body.prompts, 'quarantined')).toBe(PROMPTS);
    expect(whole(changed.body.resourceTemplates, 'quarantined')).toBe(OTHERS);
    expect((await one('prompts', gatewayId)).first.description).toMatch(/, version 1$/);
    expect(whole(changed.body.resources, 'updated')).toBe(OTHERS);
    expect((await one('resources', gatewayId)).first.size).toBe(2);

    lists.on = false;
    const emptied = await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
    expect(whole(emptied.body.prompts, 'removed')).toBe(PROMPTS);
    for (const list of Object.keys(COUNTS)) expect((await one(list, gatewayId)).total).toBe(0);
  });

  it('stores, changes and removes 1,000 skills a statement a chunk', async () => {
    const SKILLS = 1_000;
    const skills = await startSkillsServer();
    const write = (version: number) => {
      for (let i = 0; i < SKILLS; i++)
        skills.files[`large-${i}/SKILL.md`] =
          `---\nname: large-${i}\ndescription: Skill ${i}, version ${version}\n---\n\nDo ${i}.\n`;
      return skills.reload();
    };
    try {
      await write(1);
      const created = await t
        .api()
        .post('/api/v1/gateways')
        .send({ name: 'Skilled', url: skills.url })
        .expect(201);
      const gatewayId = created.body.id as string;
      expect(whole(created.body.lastSyncReport.skills, 'added')).toBe(SKILLS + 2);
      const stored = async () =>
        (await t.api().get('/api/v1/skills').query({ gatewayId, limit: 1 }).expect(200)).body
          .total as number;
      expect(await stored()).toBe(SKILLS + 2);

      await write(2);
      const changed = await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
      expect(whole(changed.body.skills, 'updated')).toBe(SKILLS);
      const pages = await Promise.all(
        Array.from({ length: Math.ceil((SKILLS + 2) / 200) }, (_, page) =>
          t
            .api()
            .get('/api/v1/skills')
            .query({ gatewayId, limit: 200, offset: page * 200 }),
        ),
      );
      const descriptions = pages.flatMap((page) =>
        (page.body.items as { originalName: string; frontmatter: { description: string } }[])
          .filter((skill) => skill.originalName.startsWith('large-'))
          .map((skill) => skill.frontmatter.description),
      );
      expect(descriptions).toHaveLength(SKILLS);
      expect(descriptions.every((text) => text.endsWith('version 2'))).toBe(true);

      for (let i = 0; i < SKILLS; i++) delete skills.files[`large-${i}/SKILL.md`];
      await skills.reload();
      const emptied = await t.api().post(`/api/v1/gateways/${gatewayId}/sync`).expect(200);
      expect(whole(emptied.body.skills, 'removed')).toBe(SKILLS);
      expect(await stored()).toBe(2);
    } finally {
      await skills.close();
    }
  });
});

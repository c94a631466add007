import { randomUUID } from 'node:crypto';
import { Gateway } from '../../src/gateways/gateway.entity';
import { boundPinMemory, pinMemoryOf, rememberPins } from '../../src/pinning/pin-memory';
import { type PinnedKind } from '../../src/pinning/pin-plan';
import { type Tombstone } from '../../src/pinning/pin-tombstone';
import { PINNED_KINDS } from '../../src/pinning/pinned-kinds';
import {
  promptRenameView,
  templateRenameView,
  toolRenameView,
} from '../../src/pinning/rename-view';
import { promptContentHash } from '../../src/prompts/prompt-definition';
import { PromptWriter } from '../../src/prompts/prompt.writer';
import { resourceContentHash } from '../../src/resources/resource-definition';
import { ResourceWriter } from '../../src/resources/resource.writer';
import { type ListDiff } from '../../src/sync-report/sync-report';
import { type ToolDefinition } from '../../src/tools/tool-definition';
import { contentHash } from '../../src/tools/tool-hash';
import { ToolWriter } from '../../src/tools/tool.writer';
import { promptDefinition, templateDefinition, toolDefinition } from '../support/factories';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';

const TOOLS: Pick<PinnedKind<ToolDefinition>, 'keyOf' | 'view'> = {
  keyOf: (tool) => tool.name,
  view: toolRenameView,
};

function diff(parts: Partial<ListDiff<ToolDefinition>>): ListDiff<ToolDefinition> {
  return {
    added: [],
    updated: [],
    removed: [],
    unchanged: 0,
    conflicts: [],
    warnings: [],
    ...parts,
  };
}

function tombstone(definition: ToolDefinition, pin: Partial<Tombstone> = {}): Tombstone {
  const hash = contentHash(definition);
  return {
    key: definition.name,
    pinnedHash: hash,
    rejectedHash: null,
    enabled: true,
    contentHash: hash,
    definition: { ...definition },
    ...toolRenameView(definition),
    ...pin,
  };
}

/** The tombstone store on a real database: what a sync remembers must survive it, bounded. */
describe('pin memory', () => {
  let db: TestDataSource;
  let tools: ToolWriter;

  beforeAll(async () => {
    db = await openTestDataSource();
    tools = new ToolWriter(db.names);
  });

  afterAll(async () => {
    await db.close();
  });

  async function gateway(): Promise<Gateway> {
    const slug = `g${randomUUID().slice(0, 8)}`;
    return db.dataSource
      .getRepository(Gateway)
      .save({ name: slug, slug, url: `http://127.0.0.1/${slug}`, pinning: 'first-sight' });
  }

  const count = async (table: string, gatewayId: string) =>
    (
      await db.dataSource.query<[{ n: number }]>(
        `SELECT count(*)::int AS n FROM ${table} WHERE gateway_id = $1`,
        [gatewayId],
      )
    )[0].n;

  it('stores tombstones, reads them back by key (whole) and by shape (how they look)', async () => {
    const owner = await gateway();
    const stable = toolDefinition('stable', {
      description: 'Returns the stable version.',
      inputSchema: { type: 'object', properties: { pkg: { type: 'string' } } },
    });
    const other = toolDefinition('other');
    await db.dataSource.transaction((em) =>
      rememberPins(
        em,
        PINNED_KINDS.tool,
        owner.id,
        { tombstones: [tombstone(stable), tombstone(other)], returned: [] },
        new Date(),
      ),
    );
    const renamed = { ...stable, name: 'stable_v2', description: 'Returns it. And more.' };
    const memory = await db.dataSource.transaction((em) =>
      pinMemoryOf(em, PINNED_KINDS.tool, owner.id, diff({ added: [stable, renamed] }), TOOLS),
    );
    const byKey = new Map(memory.tombstones.map((left) => [left.key, left]));
    expect([...byKey.keys()]).toEqual(['stable']);
    expect(byKey.get('stable')).toEqual(tombstone(stable));

    const lookalike = await db.dataSource.transaction((em) =>
      pinMemoryOf(em, PINNED_KINDS.tool, owner.id, diff({ added: [renamed] }), TOOLS),
    );
    expect(lookalike.tombstones).toEqual([{ ...tombstone(stable), definition: null }]);
    expect(lookalike.forgotten('stable')).toBe(false);

    // Gone again: the newer tombstone replaces the older.
    const newer = { ...stable, description: 'Returns the newest stable version.' };
    await db.dataSource.transaction((em) =>
      rememberPins(
        em,
        PINNED_KINDS.tool,
        owner.id,
        { tombstones: [tombstone(newer)], returned: [] },
        new Date(),
      ),
    );
    const again = await db.dataSource.transaction((em) =>
      pinMemoryOf(em, PINNED_KINDS.tool, owner.id, diff({ added: [stable] }), TOOLS),
    );
    expect(again.tombstones).toEqual([tombstone(newer)]);
  });

  it('hands a tombstone over only to an entry stored again', async () => {
    const owner = await gateway();
    const back = toolDefinition('back');
    const clashed = toolDefinition('clashed');
    await db.dataSource.transaction(async (em) => {
      await rememberPins(
        em,
        PINNED_KINDS.tool,
        owner.id,
        { tombstones: [tombstone(back), tombstone(clashed)], returned: [] },
        new Date(),
      );
      await tools.insert(em, owner, [back]);
      await rememberPins(
        em,
        PINNED_KINDS.tool,
        owner.id,
        { tombstones: [], returned: ['back', 'clashed'] },
        new Date(),
      );
    });
    const left = await db.dataSource.query<{ key: string }[]>(
      'SELECT key FROM pin_tombstone WHERE gateway_id = $1',
      [owner.id],
    );
    expect(left.map((row) => row.key)).toEqual(['clashed']);
  });

  it('reads the removed entries that leave tombstones, as their kinds define them', async () => {
    const owner = await gateway();
    const prompts = new PromptWriter(db.names);
    const resources = new ResourceWriter();
    const pinned = toolDefinition('pinned', {
      annotations: { readOnlyHint: true },
      meta: { 'example.com/x': 1 },
    });
    const { inserted } = await db.dataSource.transaction((em) =>
      tools.insert(em, owner, [pinned, toolDefinition('loose'), toolDefinition('off')]),
    );
    const id = (name: string) => inserted.find((tool) => tool.originalName === name)!.id;
    await db.dataSource.query(`UPDATE tool SET pinned_hash = content_hash WHERE id = $1`, [
      id('pinned'),
    ]);
    await db.dataSource.query(`UPDATE tool SET enabled = false WHERE id = $1`, [id('off')]);
    const memory = await db.dataSource.transaction((em) =>
      pinMemoryOf(
        em,
        PINNED_KINDS.tool,
        owner.id,
        diff({
          removed: ['pinned', 'loose', 'off'].map((name) => ({ id: id(name), name })),
        }),
        TOOLS,
      ),
    );
    expect([...memory.leaving.keys()].sort()).toEqual([id('pinned'), id('off')].sort());
    // What a tombstone keeps hashes as the entry did: an entry back at its pin is served at it.
    const kept = memory.leaving.get(id('pinned'))!;
    expect(kept).toEqual({ definition: { ...pinned }, enabled: true });
    expect(contentHash(kept.definition as unknown as ToolDefinition)).toBe(contentHash(pinned));
    expect(memory.leaving.get(id('off'))!.enabled).toBe(false);

    const prompt = promptDefinition('summarise', {
      arguments: [{ name: 'text', required: true }],
    });
    const template = templateDefinition('file:///{path}', { mimeType: 'text/plain' });
    await db.dataSource.transaction(async (em) => {
      await prompts.insert(em, owner, [prompt]);
      await resources.insertTemplates(em, owner, [template]);
    });
    for (const [spec, hash, view] of [
      [PINNED_KINDS.prompt, promptContentHash(prompt), promptRenameView(prompt)],
      [
        PINNED_KINDS['resource-template'],
        resourceContentHash(template),
        templateRenameView(template),
      ],
    ] as const) {
      const entry = await db.dataSource.getRepository(spec.entity).findOneByOrFail({
        gatewayId: owner.id,
      });
      const definition = spec.definitionOf(entry);
      expect(entry.contentHash).toBe(hash);
      expect(
        spec.kind === 'prompt'
          ? promptContentHash(definition as never)
          : resourceContentHash(definition as never),
      ).toBe(hash);
      expect(
        spec.kind === 'prompt'
          ? promptRenameView(definition as never)
          : templateRenameView(definition as never),
      ).toEqual(view);
    }
  });

  it('keeps at most the bound per gateway, the dropped keys still known as forgotten', async () => {
    const owner = await gateway();
    const neighbour = await gateway();
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 26, 10, minute));
    await db.dataSource.transaction(async (em) => {
      for (const [minute, name] of [
        [1, 'oldest'],
        [2, 'older'],
        [3, 'newer'],
        [4, 'newest'],
      ] as const)
        await rememberPins(
          em,
          PINNED_KINDS.tool,
          owner.id,
          { tombstones: [tombstone(toolDefinition(name))], returned: [] },
          at(minute),
        );
      await rememberPins(
        em,
        PINNED_KINDS.tool,
        neighbour.id,
        { tombstones: [tombstone(toolDefinition('oldest'))], returned: [] },
        at(0),
      );
    });
    expect(await db.dataSource.transaction((em) => boundPinMemory(em, owner.id, 4))).toBe(0);
    expect(await db.dataSource.transaction((em) => boundPinMemory(em, owner.id, 2))).toBe(2);
    const left = await db.dataSource.query<{ key: string }[]>(
      'SELECT key FROM pin_tombstone WHERE gateway_id = $1 ORDER BY key',
      [owner.id],
    );
    expect(left.map((row) => row.key)).toEqual(['newer', 'newest']);
    expect(await count('pin_tombstone', neighbour.id)).toBe(1);

    const added = ['oldest', 'older', 'newer', 'stranger'].map((name) => toolDefinition(name));
    const memory = await db.dataSource.transaction((em) =>
      pinMemoryOf(em, PINNED_KINDS.tool, owner.id, diff({ added }), TOOLS),
    );
    expect(memory.forgotten('oldest')).toBe(true);
    expect(memory.forgotten('older')).toBe(true);
    expect(memory.forgotten('stranger')).toBe(false);
    // Of the tombstones kept: the key coming back whole, a look-alike (the same shape) by its look.
    expect(memory.tombstones.map((left) => [left.key, left.definition !== null]).sort()).toEqual([
      ['newer', true],
      ['newest', false],
    ]);
    const neighbours = await db.dataSource.transaction((em) =>
      pinMemoryOf(em, PINNED_KINDS.tool, neighbour.id, diff({ added }), TOOLS),
    );
    expect(neighbours.forgotten('older')).toBe(false);

    // Dropping more adds to what is forgotten, and counts it.
    await db.dataSource.transaction((em) => boundPinMemory(em, owner.id, 1));
    const [row] = await db.dataSource.query<{ dropped: number }[]>(
      'SELECT dropped FROM pin_forgotten WHERE gateway_id = $1',
      [owner.id],
    );
    expect(row!.dropped).toBe(3);
    const later = await db.dataSource.transaction((em) =>
      pinMemoryOf(em, PINNED_KINDS.tool, owner.id, diff({ added }), TOOLS),
    );
    expect(['oldest', 'older', 'newer'].every((key) => later.forgotten(key))).toBe(true);
  });

  it('goes with its gateway', async () => {
    const owner = await gateway();
    await db.dataSource.transaction(async (em) => {
      await rememberPins(
        em,
        PINNED_KINDS.tool,
        owner.id,
        {
          tombstones: [tombstone(toolDefinition('a')), tombstone(toolDefinition('b'))],
          returned: [],
        },
        new Date(),
      );
      await boundPinMemory(em, owner.id, 1);
    });
    expect(await count('pin_tombstone', owner.id)).toBe(1);
    expect(await count('pin_forgotten', owner.id)).toBe(1);
    await db.dataSource.getRepository(Gateway).delete({ id: owner.id });
    expect(await count('pin_tombstone', owner.id)).toBe(0);
    expect(await count('pin_forgotten', owner.id)).toBe(0);
  });
});

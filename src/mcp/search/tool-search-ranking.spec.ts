import { type CallToolResult } from '@modelcontextprotocol/server';
import { type ProviderEmbeddings } from '../../embeddings/provider-embeddings.service';
import {
  FakeStore,
  localEmbeddings,
  serverDirectory,
  SESSION,
  setUp,
  tool,
  TOOLS,
} from '../../../test/support/tool-searches';
import { type DirectoryTool } from '../directory/directory-tool';
import { TOOL_SEARCH_NAME } from '../../common/tool-name-rule';
import { ToolSearchService } from './tool-search.service';
import { type PromotionStore } from './promotion-store';

describe('ToolSearchService ranking', () => {
  const on = serverDirectory({ enabled: true, alwaysLoaded: ['gw-always'] });

  describe('the gateway filter', () => {
    const other = (name: string, description: string): DirectoryTool => ({
      ...tool(name, description),
      gatewayId: 'g2',
      gatewaySlug: 'crm',
      originalName: name.replace(/^crm-/, ''),
    });
    const mixed = serverDirectory({ enabled: true, alwaysLoaded: [] }, [
      ...TOOLS,
      other('crm-send_email', 'Send an email to a contact'),
    ]);
    const names = (result: CallToolResult | null) =>
      (result!.structuredContent as { hits: { name: string }[] }).hits.map((hit) => hit.name);

    it('keeps only tools of the gateway named by gateway or server, in any case', async () => {
      const { call } = setUp();
      expect(names(await call(mixed, TOOL_SEARCH_NAME, { query: 'send an email' }))).toEqual(
        expect.arrayContaining(['gw-send_email', 'crm-send_email']),
      );
      for (const args of [
        { gateway: 'crm' },
        { server: 'CRM' },
        { gateway: ' crm ', server: 'gw' },
      ])
        expect(
          names(await call(mixed, TOOL_SEARCH_NAME, { query: 'send an email', ...args })),
        ).toEqual(['crm-send_email']);
      expect(
        names(await call(mixed, TOOL_SEARCH_NAME, { query: 'select:gw-weather', gateway: 'crm' })),
      ).toEqual([]);
    });

    it('names the gateways there are when it is given one that has no deferred tools', async () => {
      const { call } = setUp();
      const result = (await call(mixed, TOOL_SEARCH_NAME, { query: 'email', gateway: 'nope' }))!;
      expect(result.content).toEqual([
        {
          type: 'text',
          text: 'No deferred tool belongs to gateway "nope". Gateways with deferred tools: gw, crm.',
        },
      ]);
    });

    it('ignores a gateway that is not a string', async () => {
      const { call } = setUp();
      expect(
        names(await call(mixed, TOOL_SEARCH_NAME, { query: 'weather forecast', gateway: 7 })),
      ).toEqual(['gw-weather']);
    });
  });

  it('ranks with the embeddings provider once its tool vectors arrive', async () => {
    // A two-dimensional "model": email tools point one way, everything else the other.
    const axis = (text: string) =>
      Float32Array.from(/email|mail|inbox|letter/i.test(text) ? [1, 0] : [0, 1]);
    const asked: string[] = [];
    const provider = {
      enabled: true,
      embedTools: async (inputs: { text: string }[]) => inputs.map((input) => axis(input.text)),
      embedQuery: async (query: string) => {
        asked.push(query);
        return axis('letter');
      },
      fallBack: () => null,
    } as unknown as ProviderEmbeddings;
    const service = new ToolSearchService(
      new FakeStore() as unknown as PromotionStore,
      localEmbeddings,
      provider,
    );
    const scope = (await service.searchable(on))!;
    await scope.providerVectors;
    expect(scope.catalogue.usesProviderVectors).toBe(true);
    const result = await service.intercept(
      on,
      SESSION,
      { name: TOOL_SEARCH_NAME, arguments: { query: 'zzqx letter' } },
      { notify: () => undefined, counted: () => Promise.resolve() },
    );
    expect(asked).toEqual(['zzqx letter']);
    expect((result!.structuredContent as { hits: { name: string }[] }).hits[0]!.name).toBe(
      'gw-send_email',
    );
  });
});

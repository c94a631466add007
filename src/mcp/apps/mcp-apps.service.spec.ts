import { Logger } from '@nestjs/common';
import { type AppTool, type AppToolLookup } from './app-tool-lookup.service';
import { McpApps } from './mcp-apps.service';
import { type PrefabRenderer } from './prefab/prefab-renderer.service';

const tool = { gatewaySlug: 'alpha', originalName: 'show', appConfig: null } as AppTool;

/** An upstream's UI page whose `_meta.ui` declares these CSP connect sources. */
function page(connectDomains: string[]) {
  return {
    read: {
      contents: [
        {
          uri: 'ui://alpha/show.html',
          mimeType: 'text/html;profile=mcp-app',
          text: '<html><head></head><body>hi</body></html>',
          _meta: { ui: { csp: { connectDomains } } },
        },
      ],
    },
    listed: null,
  };
}

describe('McpApps.bridge', () => {
  afterEach(() => jest.restoreAllMocks());

  it('says once per UI and sources what CSP sources it dropped, not at every read', () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    const apps = new McpApps({} as AppToolLookup, {} as PrefabRenderer);
    const read = {
      kind: 'upstream' as const,
      tool,
      upstreamUri: 'ui://alpha/show.html',
      hashes: new Map(),
    };
    const uri = 'ui://portico/app.html';
    for (let i = 0; i < 5; i++) {
      const served = apps.bridge(uri, read, page(['https://api.alpha.example', '*']));
      expect(served.contents[0]!._meta).toMatchObject({
        ui: { csp: { connectDomains: ['https://api.alpha.example'] } },
      });
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]![0]).toContain('declares 1 CSP source(s) that are no single origin');
    // Other sources dropped from the same UI are news, and said.
    apps.bridge(uri, read, page(['https:']));
    expect(warn).toHaveBeenCalledTimes(2);
  });
});

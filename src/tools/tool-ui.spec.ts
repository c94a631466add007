import { isAllowedAppOrigin } from './tool-app-config';
import {
  parsePrefabResourceUri,
  prefabResourceUri,
  presentToolMeta,
  toolUi,
  upstreamUiResourceUri,
} from './tool-ui';

const HASH = '0123456789ab';
const URI = 'ui://prefab/tool/0123456789ab/renderer.html';

describe('per-tool UI resource URIs', () => {
  it('round-trip through the hash', () => {
    expect(prefabResourceUri(HASH)).toBe(URI);
    expect(parsePrefabResourceUri(URI)).toBe(HASH);
  });

  it.each([
    'ui://prefab/tool/0123456789AB/renderer.html',
    'ui://prefab/tool/0123456789a/renderer.html',
    'ui://prefab/tool/0123456789ab/renderer.html?x',
    'ui://prefab/renderer.html',
    'ui://get-time/mcp-app.html',
  ])('rejects %s', (uri) => {
    expect(parsePrefabResourceUri(uri)).toBeNull();
  });
});

describe('upstreamUiResourceUri', () => {
  it('reads _meta.ui.resourceUri first, then the deprecated flat key', () => {
    expect(upstreamUiResourceUri({ ui: { resourceUri: 'ui://a/x.html' } })).toBe('ui://a/x.html');
    expect(upstreamUiResourceUri({ 'ui/resourceUri': 'ui://b/y.html' })).toBe('ui://b/y.html');
    expect(
      upstreamUiResourceUri({ ui: { resourceUri: 'ui://a/x.html' }, 'ui/resourceUri': 'ui://b' }),
    ).toBe('ui://a/x.html');
  });

  it('ignores what is not a ui:// URI', () => {
    expect(upstreamUiResourceUri(null)).toBeNull();
    expect(upstreamUiResourceUri({ ui: { resourceUri: 'https://x/y.html' } })).toBeNull();
    expect(upstreamUiResourceUri({ ui: { resourceUri: 42 } })).toBeNull();
    expect(upstreamUiResourceUri({ ui: 'ui://a' })).toBeNull();
  });
});

describe('toolUi', () => {
  it('prefers the Prefab renderer once an operator switches it on', () => {
    const meta = { ui: { resourceUri: 'ui://a/x.html' } };
    expect(toolUi(meta, null)).toEqual({ kind: 'upstream', uri: 'ui://a/x.html' });
    expect(toolUi(meta, { prefab: true })).toEqual({ kind: 'prefab' });
    expect(toolUi(null, { prefab: true })).toEqual({ kind: 'prefab' });
    expect(toolUi(null, { prefab: false })).toBeNull();
  });
});

describe('presentToolMeta', () => {
  it('points a tool with an upstream UI at its per-tool resource, without CSP or permissions', () => {
    const meta = {
      ui: {
        resourceUri: 'ui://get-time/mcp-app.html',
        visibility: ['model', 'app'],
        csp: { connectDomains: ['https://api.example.com'] },
        permissions: { camera: {} },
      },
      'ui/resourceUri': 'ui://get-time/mcp-app.html',
      other: { kept: true },
    };
    const original = structuredClone(meta);
    expect(presentToolMeta(meta, HASH, null)).toEqual({
      ui: { resourceUri: URI, visibility: ['model', 'app'] },
      'ui/resourceUri': URI,
      other: { kept: true },
    });
    expect(meta).toEqual(original);
  });

  it('adds the nested form for an upstream that only used the flat key', () => {
    expect(presentToolMeta({ 'ui/resourceUri': 'ui://b/y.html' }, HASH, null)).toEqual({
      ui: { resourceUri: URI },
      'ui/resourceUri': URI,
    });
  });

  it('gives a tool the URI when its Prefab renderer is on', () => {
    expect(presentToolMeta(null, HASH, { prefab: true })).toEqual({ ui: { resourceUri: URI } });
    expect(presentToolMeta({ x: 1 }, HASH, { prefab: true })).toEqual({
      x: 1,
      ui: { resourceUri: URI },
    });
  });

  it('leaves a tool without a UI alone, except for CSP and permissions', () => {
    const plain = { ui: { visibility: ['app'] }, x: 1 };
    expect(presentToolMeta(plain, HASH, null)).toBe(plain);
    expect(presentToolMeta(null, HASH, null)).toBeNull();
    expect(
      presentToolMeta({ ui: { visibility: ['app'], csp: {}, permissions: {} } }, HASH, null),
    ).toEqual({ ui: { visibility: ['app'] } });
  });
});

describe('isAllowedAppOrigin', () => {
  it.each(['https://cdn.example.com', 'https://a.example.com:8443', 'http://localhost:5173'])(
    'allows %s',
    (origin) => expect(isAllowedAppOrigin(origin)).toBe(true),
  );

  it.each([
    '*',
    'https://*.example.com',
    'http://example.com',
    'http://127.0.0.1:3000',
    'wss://example.com',
    'https://example.com/',
    'https://example.com/path',
    'https://user:pass@example.com',
    'https://EXAMPLE.com',
    'javascript:alert(1)',
    'example.com',
    "https://a.com'",
    '',
  ])('refuses %s', (origin) => expect(isAllowedAppOrigin(origin)).toBe(false));
});

import { mergeUiResourceMeta } from './ui-resource-meta';

const EMPTY = { connectDomains: [], resourceDomains: [], frameDomains: [], baseUriDomains: [] };

describe('mergeUiResourceMeta', () => {
  it('always carries all four domain lists', () => {
    expect(mergeUiResourceMeta([])).toEqual({ csp: EMPTY });
    expect(mergeUiResourceMeta([undefined, null, 'x', []])).toEqual({ csp: EMPTY });
  });

  it('concatenates every list in order without duplicates', () => {
    const listEntry = {
      csp: {
        connectDomains: ['https://api.a.com'],
        frameDomains: ['https://frames.a.com'],
      },
    };
    const contentItem = {
      csp: {
        connectDomains: ['https://api.b.com', 'https://api.a.com'],
        resourceDomains: ['https://cdn.b.com'],
        baseUriDomains: ['https://base.b.com'],
      },
    };
    const appConfig = {
      prefab: false,
      csp: { connectDomains: ['https://api.c.com'], frameDomains: ['https://frames.a.com'] },
    };
    expect(mergeUiResourceMeta([listEntry, contentItem, appConfig]).csp).toEqual({
      connectDomains: ['https://api.a.com', 'https://api.b.com', 'https://api.c.com'],
      resourceDomains: ['https://cdn.b.com'],
      frameDomains: ['https://frames.a.com'],
      baseUriDomains: ['https://base.b.com'],
    });
  });

  it('unites permissions and lets a later prefersBorder and domain win', () => {
    expect(
      mergeUiResourceMeta([
        { permissions: { camera: {} }, prefersBorder: true, domain: 'a.example' },
        { permissions: { microphone: {}, geolocation: 'yes' }, domain: 'b.example' },
        { permissions: { clipboardWrite: {} }, prefersBorder: false },
      ]),
    ).toEqual({
      csp: EMPTY,
      permissions: { camera: {}, microphone: {}, clipboardWrite: {} },
      prefersBorder: false,
      domain: 'b.example',
    });
  });

  it('drops entries that could break out of a CSP directive', () => {
    const merged = mergeUiResourceMeta([
      {
        csp: {
          connectDomains: [
            'https://ok.example',
            "https://x.example; script-src 'unsafe-eval'",
            'https://a.example https://b.example',
            "'unsafe-inline'",
            'https://a.example,https://b.example',
            42,
            '',
          ],
          resourceDomains: 'https://not-a-list.example',
        },
      },
    ]);
    expect(merged.csp).toEqual({ ...EMPTY, connectDomains: ['https://ok.example'] });
  });
});

import {
  CSP_LIST_LIMIT,
  type DroppedSources,
  isCspOrigin,
  mergeUiResourceMeta,
} from './ui-resource-meta';

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

  it('passes on only the permissions MCP Apps defines, and a domain that is one host or origin', () => {
    const dropped: DroppedSources = { count: 0, samples: [] };
    const merged = mergeUiResourceMeta(
      [
        {
          permissions: JSON.parse(
            '{"__proto__": {}, "camera": {}, "usb": {}, "allPermissions": {}, "constructor": {}}',
          ) as unknown,
          domain: 'https://sandbox.example',
        },
        ...[
          '*',
          'https://*.example.com',
          'a.example; frame-ancestors *',
          'a.example\r\nSet-Cookie: x=1',
          'https://a.example/path',
          'x'.repeat(254),
          42,
        ].map((domain) => ({ domain })),
      ],
      dropped,
    );
    expect(merged).toEqual({
      csp: EMPTY,
      permissions: { camera: {} },
      domain: 'https://sandbox.example',
    });
    expect(Object.getPrototypeOf(merged.permissions)).toBe(Object.prototype);
    expect(dropped.count).toBe(7);
  });

  it('drops every source that is not one origin, and says which', () => {
    const hostile = [
      '*',
      'https:',
      'http:',
      '*.com',
      'https://*.com',
      'data:',
      'blob:',
      "'unsafe-eval'",
      "'unsafe-inline'",
      "https://x.example; script-src 'unsafe-eval'",
      'https://a.example https://b.example',
      'https://a.example,https://b.example',
      'http://example.com',
      'not a url',
      42,
      '',
    ];
    const dropped: DroppedSources = { count: 0, samples: [] };
    const merged = mergeUiResourceMeta(
      [
        {
          csp: {
            connectDomains: ['https://ok.example', ...hostile],
            frameDomains: hostile,
            resourceDomains: hostile,
            baseUriDomains: hostile,
          },
        },
      ],
      dropped,
    );
    expect(merged.csp).toEqual({ ...EMPTY, connectDomains: ['https://ok.example'] });
    expect(dropped.count).toBe(hostile.length * 4);
    expect(dropped.samples).toEqual(['"*"', '"https:"', '"http:"', '"*.com"', '"https://*.com"']);
  });

  it('keeps at most CSP_LIST_LIMIT sources of a list from each object, and samples the rest cut short', () => {
    const many = Array.from(
      { length: CSP_LIST_LIMIT + 3 },
      (_, index) => `https://h${index}.example`,
    );
    const dropped: DroppedSources = { count: 0, samples: [] };
    const long = `https://${'a'.repeat(300)}.example`;
    const merged = mergeUiResourceMeta(
      [
        { csp: { connectDomains: [...many, long] } },
        { csp: { connectDomains: ['https://operator.example'] } },
      ],
      dropped,
    );
    expect(merged.csp.connectDomains).toEqual([
      ...many.slice(0, CSP_LIST_LIMIT),
      'https://operator.example',
    ]);
    expect(dropped.count).toBe(4);
    expect(dropped.samples.at(-1)).toHaveLength(80);
  });
});

describe('isCspOrigin', () => {
  it.each([
    'https://cdn.example.com',
    'https://a.example.com:8443',
    'https://*.example.com',
    'https://*.cdn.example.co.uk',
    'https://xn--bcher-kva.example',
    'http://localhost',
    'http://localhost:5173',
    'http://127.0.0.1:3000',
    'http://[::1]:8080',
    'https://localhost',
    'wss://realtime.example.com',
    'wss://*.example.com:8443',
    'ws://localhost:8080',
    'https://*.pages.github.io',
    'https://*.example.internal',
  ])('accepts %s', (origin) => expect(isCspOrigin(origin)).toBe(true));

  it.each([
    '*',
    'https:',
    'http:',
    'https://*',
    '*.com',
    '*.example.com',
    'https://*.com',
    'https://*.localhost',
    'http://*.example.com',
    'https://*.*.example.com',
    'https://a.*.example.com',
    'data:',
    'blob:',
    'ws://example.com',
    'wss://*.com',
    'https://*.co.uk',
    'wss://*.co.uk',
    'https://*.com.au',
    'https://*.github.io',
    'https://*.s3.amazonaws.com',
    'https://*.xn--p1ai',
    'https://*.internal',
    'javascript:alert(1)',
    "'unsafe-eval'",
    "'self'",
    "https://x.example;script-src 'unsafe-eval'",
    'https://a.example https://b.example',
    'https://a.example\thttps://b.example',
    'https://a.example,https://b.example',
    'http://example.com',
    'http://10.0.0.1',
    'https://10.0.0.1',
    'https://example.com/',
    'https://example.com/path',
    'https://user:pass@example.com',
    'https://EXAMPLE.com',
    'https://example.com:0',
    'https://example.com:65536',
    'https://example.com:443x',
    'https://-bad.example',
    'https://bad-.example',
    'https://a..example',
    `https://${'a'.repeat(64)}.example`,
    `https://${'a.'.repeat(130)}example`,
    'example.com',
    'not a url',
    '',
  ])('refuses %s', (origin) => expect(isCspOrigin(origin)).toBe(false));
});

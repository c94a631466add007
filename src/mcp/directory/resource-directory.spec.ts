import { type DirectoryTemplate, ResourceDirectory } from './resource-directory';

const template = (gatewayId: string, slug: string, upstream: string): DirectoryTemplate => ({
  gatewayId,
  gatewaySlug: slug,
  uriTemplate: `${slug}+${upstream}`,
  upstreamTemplate: upstream,
  definition: { uriTemplate: `${slug}+${upstream}`, name: upstream },
});

const gateways = new Map([['docs', 'g1']]);
const withdrawn = {
  resources: [{ gatewayId: 'g1', uri: 'file:///notes/secret.md' }],
  templates: [{ gatewayId: 'g1', uriTemplate: 'db://{table}' }],
};

describe('ResourceDirectory', () => {
  it('reads no withdrawn URI on /mcp, which reads any other URI of the gateway', () => {
    const all = new ResourceDirectory([], [], { gateways, readAny: true }, { withdrawn });
    expect(all.resolve('docs+file:///notes/secret.md')).toBeNull();
    // However it is spelt.
    expect(all.resolve('docs+file:///notes/%73ecret.md')).toBeNull();
    expect(all.resolve('docs+FILE:///notes/drafts/../secret.md')).toBeNull();
    expect(all.resolve('docs+db://users')).toBeNull();
    expect(all.resolve('docs+DB://users')).toBeNull();
    expect(all.resolve('docs+file:///notes/other.md')).toEqual({
      gatewayId: 'g1',
      gatewaySlug: 'docs',
      upstreamUri: 'file:///notes/other.md',
    });
  });

  it('serves through a template no URI that leaves it by a dot segment, however it is spelt', () => {
    const files = [template('g1', 'docs', 'file:///alpha/{+path}')];
    const prefixed = new ResourceDirectory([], files, { gateways, readAny: false });
    const original = new ResourceDirectory([], files, null);
    for (const path of [
      '../beta/secret',
      '%2e%2e/%2e%2e/etc/passwd',
      'x/../../secret',
      './notes',
      'x/..',
      '..%2Fbeta',
      '..%5cbeta',
      '..\\beta',
      '%2E%2E%2Fbeta',
      '.\t./beta',
      '.\n./beta',
      '%252e%252e/beta',
      '%25252e./beta',
      '..;/beta',
      '\uff0e\uff0e/beta',
    ]) {
      expect([path, prefixed.resolve(`docs+file:///alpha/${path}`)]).toEqual([path, null]);
      expect([path, original.resolve(`file:///alpha/${path}`)]).toEqual([path, null]);
    }
    expect(prefixed.resolve('docs+file:///alpha/notes/a..b.md')).not.toBeNull();
    expect(original.resolve('file:///alpha/notes/.hidden')).not.toBeNull();
  });

  it("reads no upstream's app page as it is, however it is spelt", () => {
    const all = new ResourceDirectory([], [], { gateways, readAny: true });
    for (const uri of ['docs+ui://app/page.html', 'docs+UI://app/page.html', 'docs+Ui://%61pp'])
      expect(all.resolve(uri)).toBeNull();
  });

  it('reads no withdrawn resource through a template that matches it', () => {
    const server = new ResourceDirectory(
      [],
      [template('g1', 'docs', 'file:///notes/{name}')],
      { gateways, readAny: false },
      { withdrawn },
    );
    expect(server.resolve('docs+file:///notes/secret.md')).toBeNull();
    expect(server.resolve('docs+file:///notes/other.md')).not.toBeNull();
    const original = new ResourceDirectory(
      [],
      [template('g1', 'docs', 'file:///notes/{name}')],
      null,
      { withdrawn },
    );
    expect(original.resolve('file:///notes/secret.md')).toBeNull();
    expect(original.resolve('file:///notes/other.md')).not.toBeNull();
  });

  it("reads a withdrawn template's URI that a template it serves matches", () => {
    const served = template('g1', 'docs', 'db://{name}');
    const prefixed = new ResourceDirectory(
      [],
      [served],
      { gateways, readAny: true },
      { withdrawn },
    );
    expect(prefixed.resolve('docs+db://users')).not.toBeNull();
    const original = new ResourceDirectory([], [served], null, { withdrawn });
    expect(original.resolve('db://users')).not.toBeNull();
    const none = new ResourceDirectory([], [], null, { withdrawn });
    expect(none.resolve('db://users')).toBeNull();
  });
});

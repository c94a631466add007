import { runInNewContext } from 'node:vm';
import { callRewriterScript, callRewriterSource, injectFirst, scriptJson } from './call-rewriter';

/** A cross-origin parent window as far as the script can see one: it can only be posted to. */
class FakeParent {
  readonly posted: { message: unknown; rest: unknown[] }[] = [];
  readonly closed = false;
  postMessage(message: unknown, ...rest: unknown[]): void {
    this.posted.push({ message, rest });
  }
}

/**
 * Runs the bridge in a window with no DOM: a global whose `parent` is a fake, and a MessageEvent
 * whose `source` is a prototype getter, as in browsers.
 */
function harness(hashes: Map<string, string>) {
  const parent = new FakeParent();
  class MessageEvent {
    constructor(readonly origin: unknown) {}
  }
  Object.defineProperty(MessageEvent.prototype, 'source', {
    configurable: true,
    enumerable: true,
    get(this: MessageEvent) {
      return this.origin;
    },
  });
  const window: Record<string, unknown> = { MessageEvent, parent };
  window.window = window;
  runInNewContext(callRewriterSource(hashes), window);
  return {
    parent,
    window: window as { parent: FakeParent },
    event: (source: unknown) => new MessageEvent(source) as unknown as { source: unknown },
  };
}

describe('the call-rewriting bridge', () => {
  const hashes = new Map([
    ['get-time', '0123456789ab'],
    ['save', 'ba9876543210'],
  ]);

  it('sends a tools/call for a tool of its gateway under the hashed backend name', () => {
    const { parent, window } = harness(hashes);
    const request = {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'get-time', arguments: { tz: 'UTC' }, _meta: { progressToken: 1 } },
    };
    window.parent.postMessage(request, '*');
    expect(parent.posted).toEqual([
      {
        message: {
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: {
            name: '0123456789ab_get-time',
            arguments: { tz: 'UTC' },
            _meta: { progressToken: 1 },
          },
        },
        rest: ['*'],
      },
    ]);
    expect(request.params.name).toBe('get-time');
  });

  it('passes other names, other methods and non-messages through unchanged', () => {
    const { parent, window } = harness(hashes);
    const messages = [
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'gateway-1-get-time' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: '0123456789ab_get-time' } },
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'toString' } },
      { jsonrpc: '2.0', id: 4, method: 'ui/initialize', params: { name: 'get-time' } },
      { jsonrpc: '2.0', method: 'tools/call' },
      'get-time',
      null,
    ];
    for (const message of messages) window.parent.postMessage(message, { targetOrigin: '*' });
    parent.posted.forEach((post, index) => expect(post.message).toBe(messages[index]));
    expect(parent.posted).toHaveLength(messages.length);
  });

  it('makes messages from the real parent report the wrapper as their source', () => {
    const { parent, window, event } = harness(hashes);
    expect(window.parent).not.toBe(parent);
    expect(event(parent).source).toBe(window.parent);
    const other = {};
    expect(event(other).source).toBe(other);
  });

  it('lets the page read what a cross-origin parent exposes', () => {
    const { window } = harness(hashes);
    expect((window.parent as unknown as { closed: boolean }).closed).toBe(false);
  });

  it('does nothing in a top-level page', () => {
    const window: Record<string, unknown> = { MessageEvent: class {} };
    window.window = window;
    window.parent = window;
    runInNewContext(callRewriterSource(hashes), window);
    expect(window.parent).toBe(window);
  });

  it('embeds names as data that cannot close the script element', () => {
    const hostile = new Map([['</script><script>alert(1)</script>', 'aaaaaaaaaaaa']]);
    const script = callRewriterScript(hostile);
    expect(script.match(/<\/script>/gi)).toHaveLength(1);
    expect(script.endsWith('</script>')).toBe(true);
    const { parent, window } = harness(hostile);
    window.parent.postMessage({
      method: 'tools/call',
      params: { name: '</script><script>alert(1)</script>' },
    });
    expect(parent.posted[0]!.message).toEqual({
      method: 'tools/call',
      params: { name: 'aaaaaaaaaaaa_</script><script>alert(1)</script>' },
    });
  });

  it('keeps a name such as __proto__ an ordinary entry', () => {
    const { parent, window } = harness(new Map([['__proto__', 'cccccccccccc']]));
    window.parent.postMessage({ method: 'tools/call', params: { name: '__proto__' } });
    window.parent.postMessage({ method: 'tools/call', params: { name: 'constructor' } });
    expect(parent.posted.map((post) => (post.message as { params: unknown }).params)).toEqual([
      { name: 'cccccccccccc___proto__' },
      { name: 'constructor' },
    ]);
  });
});

describe('scriptJson', () => {
  it('escapes what could end a script element or a JavaScript string', () => {
    const text = scriptJson(['</script>', '<!--', '&amp;', '\u2028\u2029']);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(['</script>', '<!--', '&amp;', '\u2028\u2029']);
  });
});

describe('injectFirst', () => {
  const snippet = '<script>first()</script>';

  it.each([
    [
      '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8"><script>app()</script>',
      '<!DOCTYPE html>\n<html lang="en">\n<head><script>first()</script>\n<meta charset="utf-8"><script>app()</script>',
    ],
    [
      '\uFEFF<!-- built --><!doctype html><html data-x="a>b"><body><script>app()</script>',
      '\uFEFF<!-- built --><!doctype html><html data-x="a>b"><script>first()</script><body><script>app()</script>',
    ],
    ['<script>app()</script>', '<script>first()</script><script>app()</script>'],
    ['<header>x</header>', '<script>first()</script><header>x</header>'],
    ['', '<script>first()</script>'],
  ])('puts the bridge before the first script of %j', (html, expected) => {
    expect(injectFirst(html, snippet)).toBe(expected);
  });

  it('keeps the doctype first, so the page stays in standards mode', () => {
    expect(injectFirst('<!doctype html><p>x', snippet)).toBe(
      '<!doctype html><script>first()</script><p>x',
    );
  });
});

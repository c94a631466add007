import { invokeResultView } from './invoke-result-view';

describe('invokeResultView', () => {
  it('shows text, summarises binary content and keeps the raw result', () => {
    const view = invokeResultView({
      content: [
        { type: 'text', text: '<b>hello</b>' },
        { type: 'image', data: Buffer.from('abcdef').toString('base64'), mimeType: 'image/png' },
        { type: 'resource_link', uri: 'file:///x.txt', name: 'x.txt' },
        { type: 'resource', resource: { uri: 'mem://a', text: 'inline' } },
        {
          type: 'resource',
          resource: { uri: 'mem://b', blob: 'AAAA', mimeType: 'application/pdf' },
        },
      ],
      structuredContent: { ok: true },
    });
    expect(view.isError).toBe(false);
    expect(view.blocks).toEqual([
      { kind: 'Text', text: '<b>hello</b>', summary: null },
      { kind: 'Image', text: null, summary: 'image/png, 6 bytes' },
      { kind: 'Resource link', text: null, summary: 'x.txt: file:///x.txt' },
      { kind: 'Resource', text: 'inline', summary: 'mem://a' },
      { kind: 'Resource', text: null, summary: 'mem://b (application/pdf, 3 bytes)' },
    ]);
    expect(view.structured).toBe('{\n  "ok": true\n}');
    expect(JSON.parse(view.raw)).toMatchObject({ structuredContent: { ok: true } });
  });

  it('flags a tool’s own failure', () => {
    const view = invokeResultView({ content: [{ type: 'text', text: 'boom' }], isError: true });
    expect(view).toMatchObject({ isError: true, structured: null });
  });
});

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createViewEngine, projectRoot } from './admin-views';
import { pager } from './pagination';
import { syncReportView } from './sync-report-view';

const viewsDir = join(projectRoot(), 'views');
const HOSTILE = '<img src=x onerror=alert(1)>';

function viewFiles(dir = viewsDir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? viewFiles(path) : [path];
  });
}

function render(view: string, model: object): string {
  const engine = createViewEngine(viewsDir);
  return engine.compile(readFileSync(join(viewsDir, `${view}.hbs`), 'utf8'))(model);
}

function tool(index: number, overrides: object = {}) {
  return {
    id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    name: `gw-tool_${index}`,
    originalName: `tool_${index}`,
    gatewayId: '11111111-1111-4111-8111-111111111111',
    gatewaySlug: 'gw',
    description: `Tool ${index}`,
    visibility: ['model', 'app'],
    enabled: true,
    ...overrides,
  };
}

describe('admin views', () => {
  it('use no triple-stash except for the layout body and the dashboard charts', () => {
    const raw = viewFiles()
      .filter((file) => file.endsWith('.hbs'))
      .flatMap((file) =>
        [...readFileSync(file, 'utf8').matchAll(/\{\{\{?\s*[^}]*\}\}\}?/g)]
          .map((match) => match[0])
          .filter((tag) => tag.startsWith('{{{') || tag.startsWith('{{&'))
          .map((tag) => `${relative(viewsDir, file)}: ${tag}`),
      );
    // The charts are SVG drawn by src/admin/svg-charts.ts, which escapes every text it writes
    // (svg-charts.spec.ts tries hostile tool names); nothing else may be raw.
    expect(raw.sort()).toEqual([
      'dashboard.hbs: {{{charts.callsSvg}}}',
      'dashboard.hbs: {{{charts.errorsSvg}}}',
      'dashboard.hbs: {{{charts.slowestSvg}}}',
      'layouts/main.hbs: {{{body}}}',
    ]);
  });

  it('render untrusted text as text, in tables and on detail pages', () => {
    const hostile = tool(1, { description: HOSTILE, originalName: `"${HOSTILE}` });
    const list = render('tools', {
      tools: [hostile],
      gateways: [],
      filter: { q: `"><script>alert(1)</script>` },
      pager: pager(1, 1, () => '/admin/tools'),
      errors: {},
    });
    expect(list).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
    expect(list).not.toContain('<img');
    expect(list).not.toContain('<script>');
    const detail = render('tool', {
      tool: { ...hostile, inputSchema: { description: HOSTILE }, annotations: { title: HOSTILE } },
      gateway: { id: hostile.gatewayId, name: HOSTILE, enabled: true },
    });
    expect(detail).not.toContain('<img');
    expect(detail).toContain('&quot;description&quot;: &quot;&lt;img');
  });

  it('continue S. No. from the page offset', () => {
    const tools = Array.from({ length: 3 }, (_, i) => tool(i));
    const html = render('tools', {
      tools,
      gateways: [],
      filter: {},
      errors: {},
      pager: pager(2, 28, (n) => `/admin/tools?page=${n}`),
    });
    const serials = [...html.matchAll(/<td class="serial">(\d+)<\/td>/g)].map((m) => m[1]);
    expect(serials).toEqual(['26', '27', '28']);
    expect(html).toContain('Rows 26–28 of 28');
  });

  it('flag tool names longer than clients accept', () => {
    const html = render('tools', {
      tools: [tool(1, { name: `gw-${'x'.repeat(62)}` }), tool(2)],
      gateways: [],
      filter: {},
      errors: {},
      pager: pager(1, 2, () => '/admin/tools'),
    });
    expect(html.match(/Over 64 characters/g)).toHaveLength(1);
  });

  it('render sync conflicts and warnings as text, numbered, each under its header', () => {
    const html = render('gateway', {
      gateway: {
        id: '11111111-1111-4111-8111-111111111111',
        name: 'gw',
        slug: 'gw',
        enabled: true,
        status: 'healthy',
        authType: 'none',
      },
      report: syncReportView({
        added: ['fine'],
        updated: [],
        removed: [],
        unchanged: 0,
        conflicts: [
          { name: HOSTILE, reason: 'the name breaks the MCP tool-name rule' },
          { name: 'twice', reason: `listed twice <b>${HOSTILE}</b>` },
        ],
        warnings: [{ name: `"${HOSTILE}`, reason: `description truncated ${HOSTILE}` }],
      }),
      tools: [],
      pager: pager(1, 0, () => '/admin/gateways/x'),
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    const escaped = '&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;';
    expect(html).toContain(
      '<strong>1 added, 0 updated, 0 removed, 0 unchanged, 2 conflicts, 1 warning</strong>',
    );
    expect(html).toContain('<h3>Conflicts: not stored (2)</h3>');
    expect(html).toContain(
      `<tr><td>1</td><td><code>${escaped}</code></td><td>the name breaks the MCP tool-name rule</td></tr>`,
    );
    expect(html).toContain(
      `<tr><td>2</td><td><code>twice</code></td><td>listed twice &lt;b&gt;${escaped}&lt;/b&gt;</td></tr>`,
    );
    expect(html).toContain('<h3>Warnings: stored with a change (1)</h3>');
    expect(html).toContain(
      `<tr><td>1</td><td><code>&quot;${escaped}</code></td><td>description truncated ${escaped}</td></tr>`,
    );
    const headers = [...html.matchAll(/<thead><tr>(.*?)<\/tr><\/thead>/g)].map((match) =>
      [...match[1]!.matchAll(/<th scope="col">([^<]*)<\/th>/g)].map((th) => th[1]),
    );
    expect(headers).toEqual([
      ['S. No.', 'Upstream name', 'Reason'],
      ['S. No.', 'Upstream name', 'What changed'],
    ]);
  });
});

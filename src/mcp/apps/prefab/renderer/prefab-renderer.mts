import {
  App,
  applyDocumentTheme,
  applyHostFonts,
  applyHostStyleVariables,
  type McpUiHostContext,
} from '@modelcontextprotocol/ext-apps';
import { type Block, resultBlock, type ToolResultLike } from './result-blocks.js';

/** What Portico writes into the page for the tool it renders. */
interface PrefabConfig {
  /** The tool's hashed backend name, when apps may call it; the refresh button calls it. */
  tool: string | null;
  title: string;
}

function readConfig(): PrefabConfig {
  const element = document.getElementById('portico-prefab-config');
  return JSON.parse(element?.textContent ?? '{"tool":null,"title":""}') as PrefabConfig;
}

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  if (className) created.className = className;
  if (text !== undefined) created.textContent = text;
  return created;
}

function omittedNote(omitted: number): HTMLElement[] {
  return omitted > 0 ? [element('p', 'omitted', `${omitted} more not shown`)] : [];
}

/** Upstream data is only ever set as text, never parsed as HTML. */
function draw(block: Block): HTMLElement {
  switch (block.kind) {
    case 'text':
      return element('p', 'text', block.text);
    case 'table': {
      const wrapper = element('div', 'table');
      const table = element('table');
      const head = element('tr');
      for (const column of block.columns) head.append(element('th', undefined, column));
      table.append(element('thead'), element('tbody'));
      table.tHead!.append(head);
      for (const row of block.rows) {
        const line = element('tr');
        for (const cell of row) line.append(element('td', undefined, cell));
        table.tBodies[0]!.append(line);
      }
      wrapper.append(table, ...omittedNote(block.omitted));
      return wrapper;
    }
    case 'card': {
      const card = element('dl', 'card');
      for (const entry of block.entries) {
        card.append(element('dt', undefined, entry.key));
        const value = element('dd');
        value.append(draw(entry.value));
        card.append(value);
      }
      return card;
    }
    case 'list': {
      const wrapper = element('div');
      const list = element('ul', 'list');
      for (const item of block.items) {
        const line = element('li');
        line.append(draw(item));
        list.append(line);
      }
      wrapper.append(list, ...omittedNote(block.omitted));
      return wrapper;
    }
  }
}

const config = readConfig();
const title = document.getElementById('title')!;
const output = document.getElementById('result')!;
const status = document.getElementById('status')!;
const refresh = document.getElementById('refresh') as HTMLButtonElement;
title.textContent = config.title;
let lastArguments: Record<string, unknown> = {};

function show(result: ToolResultLike): void {
  output.replaceChildren(draw(resultBlock(result)));
  output.classList.toggle('error', result.isError === true);
  status.textContent = result.isError ? 'The tool reported an error.' : '';
}

function applyContext(context: McpUiHostContext): void {
  if (context.theme) applyDocumentTheme(context.theme);
  if (context.styles?.variables) applyHostStyleVariables(context.styles.variables);
  if (context.styles?.css?.fonts) applyHostFonts(context.styles.css.fonts);
}

const app = new App({ name: 'Portico Prefab renderer', version: '1.0.0' }, {});
app.ontoolinput = (params) => {
  lastArguments = params.arguments ?? {};
};
app.ontoolresult = show;
app.onhostcontextchanged = applyContext;

if (config.tool) {
  const tool = config.tool;
  refresh.hidden = false;
  refresh.addEventListener('click', () => {
    refresh.disabled = true;
    status.textContent = 'Refreshing…';
    app
      .callServerTool({ name: tool, arguments: lastArguments })
      .then(show, (error: unknown) => {
        status.textContent = `Refresh failed: ${error instanceof Error ? error.message : String(error)}`;
      })
      .finally(() => {
        refresh.disabled = false;
      });
  });
}

app
  .connect()
  .then(() => {
    const context = app.getHostContext();
    if (context) applyContext(context);
  })
  .catch((error: unknown) => {
    status.textContent = `Could not reach the host: ${String(error)}`;
  });

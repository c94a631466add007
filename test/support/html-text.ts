/** Reading rendered admin pages as a person would: text, and tables cell by cell. */

const ENTITIES: Record<string, string> = {
  lt: '<',
  gt: '>',
  quot: '"',
  amp: '&',
  '#x27': "'",
  '#x3D': '=',
  '#x60': '`',
};

/** Markup as a reader sees it: tags dropped, Handlebars' escapes undone, spaces collapsed. */
export function textOf(html: string): string {
  return html
    .replace(/<[^>]+>/g, '')
    .replace(/&(lt|gt|quot|amp|#x27|#x3D|#x60);/g, (_, name: string) => ENTITIES[name]!)
    .replace(/\s+/g, ' ')
    .trim();
}

/** The header and body cells, as text, of the table with this class. */
export function tableOf(html: string, className: string): { columns: string[]; rows: string[][] } {
  const table = new RegExp(`<table class="${className}">([\\s\\S]*?)</table>`).exec(html);
  if (!table) throw new Error(`No table.${className} on the page`);
  const [head, body] = table[1]!.split('</thead>');
  const cells = (markup: string, tag: string) =>
    [...markup.matchAll(new RegExp(`<${tag}(?:\\s[^>]*)?>([\\s\\S]*?)</${tag}>`, 'g'))].map(
      (match) => textOf(match[1]!),
    );
  return {
    columns: cells(head!, 'th'),
    rows: [...(body ?? '').matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) => cells(row[1]!, 'td')),
  };
}

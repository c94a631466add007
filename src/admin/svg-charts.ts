/** Small charts drawn on the server as inline SVG: no chart library, no script, no CDN. */

export interface Bar {
  label: string;
  value: number;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => ESCAPES[char]!);
}

function round(value: number): string {
  return String(Math.round(value * 10) / 10);
}

/**
 * A column chart of a series (calls per minute): one column per value, the highest labelled,
 * each with a tooltip. `title` names it for screen readers.
 */
export function columnChart(
  bars: readonly Bar[],
  options: { title: string; unit: string; width?: number; height?: number; cssClass?: string },
): string {
  const width = options.width ?? 600;
  const height = options.height ?? 120;
  const top = 14;
  const bottom = height - 16;
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const step = bars.length > 0 ? width / bars.length : width;
  const columns = bars
    .map((bar, index) => {
      const h = max > 0 ? ((bottom - top) * bar.value) / max : 0;
      const x = index * step + step * 0.1;
      return `<rect x="${round(x)}" y="${round(bottom - h)}" width="${round(step * 0.8)}" height="${round(h)}"><title>${escapeXml(`${bar.label}: ${round(bar.value)} ${options.unit}`)}</title></rect>`;
    })
    .join('');
  const first = bars[0]?.label ?? '';
  const last = bars.at(-1)?.label ?? '';
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart ${escapeXml(options.cssClass ?? '')}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(options.title)}">`,
    `<title>${escapeXml(options.title)}</title>`,
    `<line class="axis" x1="0" y1="${bottom}" x2="${width}" y2="${bottom}"/>`,
    `<text class="max" x="0" y="10">${escapeXml(`max ${round(max)} ${options.unit}`)}</text>`,
    columns,
    `<text x="0" y="${height - 3}">${escapeXml(first)}</text>`,
    `<text x="${width}" y="${height - 3}" text-anchor="end">${escapeXml(last)}</text>`,
    '</svg>',
  ].join('');
}

/** A bar chart of named values (the slowest tools), longest first as given, labels on the bars. */
export function barChart(
  bars: readonly Bar[],
  options: { title: string; unit: string; width?: number },
): string {
  const width = options.width ?? 600;
  const row = 22;
  const height = Math.max(row, bars.length * row);
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  const rows = bars
    .map((bar, index) => {
      const w = max > 0 ? (width * 0.55 * bar.value) / max : 0;
      const y = index * row;
      const label = `${round(bar.value)} ${options.unit}`;
      return (
        `<rect x="0" y="${y + 3}" width="${round(w)}" height="${row - 6}"><title>${escapeXml(`${bar.label}: ${label}`)}</title></rect>` +
        `<text x="${round(w + 6)}" y="${y + row - 7}">${escapeXml(`${bar.label} — ${label}`)}</text>`
      );
    })
    .join('');
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart bars" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(options.title)}">`,
    `<title>${escapeXml(options.title)}</title>`,
    rows,
    '</svg>',
  ].join('');
}

import { barChart, columnChart, escapeXml } from './svg-charts';

describe('svg charts', () => {
  it('draws one column per value, scaled to the highest', () => {
    const svg = columnChart(
      [
        { label: '10:00', value: 2 },
        { label: '10:01', value: 0 },
        { label: '10:02', value: 4 },
      ],
      { title: 'Calls per minute', unit: 'calls', width: 300, height: 116 },
    );
    const heights = [...svg.matchAll(/<rect [^>]*height="([\d.]+)"/g)].map((m) => Number(m[1]));
    expect(heights).toEqual([43, 0, 86]);
    expect(svg).toContain('aria-label="Calls per minute"');
    expect(svg).toContain('max 4 calls');
    expect(svg).not.toContain('<script');
  });

  it('escapes every name it writes', () => {
    const svg = barChart([{ label: '<img onerror="x">&', value: 12.345 }], {
      title: 'Slowest "tools"',
      unit: 'ms',
    });
    expect(svg).not.toContain('<img');
    expect(svg).toContain('&lt;img onerror=&quot;x&quot;&gt;&amp; — 12.3 ms');
    expect(svg).toContain('aria-label="Slowest &quot;tools&quot;"');
    expect(escapeXml(`'`)).toBe('&#39;');
  });

  it('draws an empty series flat', () => {
    const svg = columnChart([{ label: 'a', value: 0 }], { title: 't', unit: 'u' });
    expect(svg).toContain('max 0 u');
    expect(svg).toContain('height="0"');
  });
});

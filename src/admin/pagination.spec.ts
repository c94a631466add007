import { hrefWith, pageNumber, pager } from './pagination';

describe('pagination', () => {
  const href = (page: number) => hrefWith('/admin/tools', { q: 'time', page });

  it('reads ?page leniently', () => {
    expect(pageNumber('3')).toBe(3);
    expect(pageNumber(['2', '9'])).toBe(2);
    for (const raw of [undefined, '', '0', '-1', 'abc', '1.5', '99999999']) {
      expect(pageNumber(raw)).toBe(1);
    }
  });

  it('continues numbering across pages: row 1 of page 2 at 25 a page is 26', () => {
    const second = pager(2, 30, href);
    expect(second).toMatchObject({ offset: 25, from: 26, to: 30, pages: 2 });
    expect(second.prevHref).toBe('/admin/tools?q=time');
    expect(second.nextHref).toBeNull();
    const first = pager(1, 30, href);
    expect(first).toMatchObject({ offset: 0, from: 1, to: 25 });
    expect(first.nextHref).toBe('/admin/tools?q=time&page=2');
  });

  it('shows an empty page past the end, linking back to the last one', () => {
    const past = pager(9, 30, href);
    expect(past).toMatchObject({ from: 0, to: 0, pages: 2 });
    expect(past.prevHref).toBe('/admin/tools?q=time&page=2');
    expect(past.firstHref).toBe('/admin/tools?q=time');
  });

  it('links the first, last and nearby pages with gaps between', () => {
    const middle = pager(10, 25 * 20, href);
    const labels = middle.links.map((link) => ('gap' in link ? '…' : String(link.page)));
    expect(labels).toEqual(['1', '…', '8', '9', '10', '11', '12', '…', '20']);
    expect(middle.links.find((link) => 'current' in link && link.current)).toMatchObject({
      page: 10,
    });
  });

  it('has one page when there is nothing', () => {
    expect(pager(1, 0, href)).toMatchObject({ pages: 1, from: 0, to: 0, nextHref: null });
  });
});

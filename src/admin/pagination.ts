export const PAGE_SIZE = 25;
const MAX_PAGE = 1_000_000;

export interface PageLink {
  page: number;
  href: string;
  current: boolean;
}

export interface Pager {
  page: number;
  pageSize: number;
  /** Rows before this page; S. No. continues from it. */
  offset: number;
  total: number;
  pages: number;
  /** 1-based numbers of the first and last row shown; 0 when none. */
  from: number;
  to: number;
  /** Where a page past the end sends the reader back to. */
  firstHref: string;
  prevHref: string | null;
  nextHref: string | null;
  links: (PageLink | { gap: true })[];
}

/** `?page=N` as a page number: anything that is not a positive integer is page 1. */
export function pageNumber(raw: unknown): number {
  const text: unknown = Array.isArray(raw) ? (raw as unknown[])[0] : raw;
  if (typeof text !== 'string' || !/^\d{1,7}$/.test(text)) return 1;
  return Math.min(Math.max(1, Number(text)), MAX_PAGE);
}

export function offsetOf(page: number, pageSize = PAGE_SIZE): number {
  return (page - 1) * pageSize;
}

/** Everything a page needs to number its rows and link to its neighbours. */
export function pager(
  page: number,
  total: number,
  hrefOf: (page: number) => string,
  pageSize = PAGE_SIZE,
): Pager {
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const offset = offsetOf(page, pageSize);
  const shown = Math.max(0, Math.min(pageSize, total - offset));
  const numbers = [...new Set([1, page - 2, page - 1, page, page + 1, page + 2, pages])]
    .filter((n) => n >= 1 && n <= pages)
    .sort((a, b) => a - b);
  const links: Pager['links'] = [];
  numbers.forEach((n, i) => {
    if (i > 0 && n - numbers[i - 1]! > 1) links.push({ gap: true });
    links.push({ page: n, href: hrefOf(n), current: n === page });
  });
  return {
    page,
    pageSize,
    offset,
    total,
    pages,
    from: shown > 0 ? offset + 1 : 0,
    to: shown > 0 ? offset + shown : 0,
    firstHref: hrefOf(1),
    prevHref: page > 1 ? hrefOf(Math.min(page - 1, pages)) : null,
    nextHref: page < pages ? hrefOf(page + 1) : null,
    links,
  };
}

/** A link to `path` with the given query parameters, leaving out empty ones and page 1. */
export function hrefWith(
  path: string,
  params: Record<string, string | number | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined || value === '' || (name === 'page' && value === 1)) continue;
    query.set(name, String(value));
  }
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT, parseToolQuery, searchLimit } from './tool-query';

describe('parseToolQuery', () => {
  it('reads select: with exact names, trimmed, in order, without duplicates', () => {
    expect(parseToolQuery(' select:github-create_issue, slack-post ,github-create_issue')).toEqual({
      kind: 'select',
      names: ['github-create_issue', 'slack-post'],
    });
    expect(parseToolQuery('SELECT:a.b')).toEqual({ kind: 'select', names: ['a.b'] });
  });

  it('drops select: names that no tool could have', () => {
    expect(parseToolQuery('select:good_name,bad name,worse(')).toEqual({
      kind: 'select',
      names: ['good_name'],
    });
  });

  it('reads +term rest: the term lower-cased, the rest for ranking', () => {
    expect(parseToolQuery('+GitHub open pull requests')).toEqual({
      kind: 'require',
      term: 'github',
      rest: 'open pull requests',
    });
    expect(parseToolQuery('+slack')).toEqual({ kind: 'require', term: 'slack', rest: '' });
  });

  it('reads anything else as free text', () => {
    expect(parseToolQuery('  send a message  ')).toEqual({ kind: 'text', text: 'send a message' });
    expect(parseToolQuery('select')).toEqual({ kind: 'text', text: 'select' });
  });

  it.each([
    ['empty', ''],
    ['whitespace', ' \t\n '],
    ['a bare +', '+'],
    ['a + with only whitespace', '+   '],
    ['select: without names', 'select:'],
    ['select: with only commas', 'select: , ,'],
    ['select: with only invalid names', 'select:(.*),[a-'],
    ['a + term that is an invalid pattern', '+[a-'],
    ['a + term with a regex', '+git(hub|lab) issues'],
  ])('finds nothing to search for in %s', (_case, query) => {
    expect(parseToolQuery(query)).toEqual({ kind: 'none' });
  });
});

describe('searchLimit', () => {
  it('defaults to a few for searches and to every name for select:', () => {
    expect(searchLimit({ kind: 'text', text: 'x' }, undefined)).toBe(DEFAULT_SEARCH_LIMIT);
    expect(
      searchLimit({ kind: 'select', names: ['a', 'b', 'c', 'd', 'e', 'f', 'g'] }, undefined),
    ).toBe(7);
  });

  it('clamps a given limit', () => {
    expect(searchLimit({ kind: 'text', text: 'x' }, 0)).toBe(1);
    expect(searchLimit({ kind: 'text', text: 'x' }, -3)).toBe(1);
    expect(searchLimit({ kind: 'text', text: 'x' }, 2.7)).toBe(2);
    expect(searchLimit({ kind: 'text', text: 'x' }, 10_000)).toBe(MAX_SEARCH_LIMIT);
    expect(searchLimit({ kind: 'select', names: ['a', 'b', 'c'] }, 2)).toBe(2);
  });
});

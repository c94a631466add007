import { queryTerms, stem, terms, words } from './terms';

describe('words', () => {
  it('splits camelCase, snake_case, kebab-case and dotted names into lower-case words', () => {
    expect(words('listPullRequests')).toEqual(['list', 'pull', 'requests']);
    expect(words('list_pull_requests')).toEqual(['list', 'pull', 'requests']);
    expect(words('github-list.pull-requests')).toEqual(['github', 'list', 'pull', 'requests']);
    expect(words('parseHTMLDocument')).toEqual(['parse', 'html', 'document']);
    expect(words('listOpenPRs for getAPIs')).toEqual(['list', 'open', 'prs', 'for', 'get', 'apis']);
  });

  it('keeps letters beyond ASCII and yields nothing for punctuation only', () => {
    expect(words('Größe ändern')).toEqual(['größe', 'ändern']);
    expect(words('((( ??? ***')).toEqual([]);
  });

  it('writes multi-word forms as one word', () => {
    expect(words('my To-Do list')).toEqual(['my', 'todo', 'list']);
    expect(words('sign in, then log out')).toEqual(['login', 'then', 'logout']);
    expect(words('how many rows')).toEqual(['count', 'rows']);
    expect(words('who last touched this line')).toEqual(['who', 'history', 'this', 'line']);
  });
});

describe('stem', () => {
  it.each([
    ['creates', 'creat'],
    ['creating', 'creat'],
    ['created', 'creat'],
    ['queries', 'queri'],
    ['query', 'queri'],
    ['branches', 'branch'],
    ['repositories', 'repositori'],
    ['deployments', 'deploy'],
    ['s3', 's3'],
    ['ab', 'ab'],
  ])('%s -> %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });

  it('leaves an overlong word as it is (the stemmer takes the square of its length)', () => {
    const word = 'a'.repeat(200_000);
    expect(stem(word)).toBe(word);
    expect(stem(`${'re'.repeat(30)}creating`)).toBe(`${'re'.repeat(30)}creating`);
    expect(stem(`${'re'.repeat(20)}creating`)).not.toBe(`${'re'.repeat(20)}creating`);
  });
});

describe('terms', () => {
  it('drops stopwords and single letters, and stems the rest', () => {
    expect(terms('Could you please show me the files in a folder for s3')).toEqual([
      'show',
      'file',
      'folder',
      's3',
    ]);
  });

  it('keeps "all": a request for all of something wants the tools that do many at once', () => {
    expect(terms('archive all the newsletters')).toContain('all');
  });

  it('spells abbreviations out, so that either form meets the other', () => {
    expect(terms('merge PR 42')).toEqual(['merg', 'pull', 'request', '42']);
    expect(terms('list_merge_requests')).toEqual(terms('list MRs'));
    expect(terms('k8s db')).toEqual(['kubernet', 'databas']);
  });
});

describe('queryTerms', () => {
  it('adds "file" when a request names a file or a path', () => {
    expect(queryTerms('who touched line 120 of server.ts')).toContain('file');
    expect(queryTerms("what's inside config/settings.yaml")).toContain('file');
    expect(queryTerms('find every .env under the repo')).toContain('file');
  });

  it('adds nothing for a product name, a version or a web address', () => {
    for (const query of ['docs for Next.js', 'upgrade to 1.2.3', 'open https://example.com/a.html'])
      expect(queryTerms(query)).toEqual(terms(query));
  });
});

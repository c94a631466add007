import { Bm25Index, stem, tokenize } from './bm25';

describe('tokenize', () => {
  it('splits camelCase, snake_case, kebab-case and dotted names into lower-case stems', () => {
    expect(tokenize('listPullRequests')).toEqual(['list', 'pull', 'request']);
    expect(tokenize('list_pull_requests')).toEqual(['list', 'pull', 'request']);
    expect(tokenize('github-list.pull-requests')).toEqual(['github', 'list', 'pull', 'request']);
    expect(tokenize('parseHTMLDocument')).toEqual(['pars', 'html', 'document']);
  });

  it('drops stopwords and single characters, keeps numbers', () => {
    expect(tokenize('Get me the files in a folder for s3 v2')).toEqual([
      'fil',
      'folder',
      's3',
      'v2',
    ]);
  });

  it('keeps letters beyond ASCII', () => {
    expect(tokenize('Größe ändern')).toEqual(['größ', 'ändern']);
  });

  it('yields nothing for punctuation only', () => {
    expect(tokenize('((( ??? ***')).toEqual([]);
  });
});

describe('stem', () => {
  it.each([
    ['creates', 'creat'],
    ['creating', 'creat'],
    ['created', 'creat'],
    ['create', 'creat'],
    ['queries', 'query'],
    ['query', 'query'],
    ['branches', 'branch'],
    ['boxes', 'box'],
    ['running', 'run'],
    ['status', 'status'],
    ['address', 'address'],
    ['messages', 'messag'],
    ['message', 'messag'],
    ['get', 'get'],
  ])('%s -> %s', (word, expected) => {
    expect(stem(word)).toBe(expected);
  });
});

describe('Bm25Index', () => {
  const doc = (text: string) => [{ text, weight: 1 }];

  it('ranks the document with more of the rarer query terms first', () => {
    const index = Bm25Index.build([
      doc('read a file from disk'),
      doc('send a slack message to a channel'),
      doc('post a message'),
      doc('list files in a directory'),
    ]);
    expect(index.search('send message to slack', 4).map((hit) => hit.doc)).toEqual([1, 2]);
    expect(index.search('files', 4).map((hit) => hit.doc)).toEqual([0, 3]);
  });

  it('weights fields: a term in a boosted field outranks the same term in a plain one', () => {
    const index = Bm25Index.build([
      [
        { text: 'alpha', weight: 1 },
        { text: 'beta gamma', weight: 1 },
      ],
      [
        { text: 'beta', weight: 3 },
        { text: 'alpha gamma', weight: 1 },
      ],
    ]);
    expect(index.search('beta', 2).map((hit) => hit.doc)).toEqual([1, 0]);
    expect(index.search('alpha', 2).map((hit) => hit.doc)).toEqual([0, 1]);
  });

  it('normalises by length: the same match in a shorter document scores higher', () => {
    const index = Bm25Index.build([
      doc('weather forecast for a city with many other unrelated words here'),
      doc('weather forecast'),
    ]);
    const [first, second] = index.search('weather', 2);
    expect(first?.doc).toBe(1);
    expect(first!.score).toBeGreaterThan(second!.score);
  });

  it('returns at most limit hits, breaking ties by document order', () => {
    const index = Bm25Index.build([doc('same'), doc('same'), doc('same'), doc('other')]);
    expect(index.search('same', 2).map((hit) => hit.doc)).toEqual([0, 1]);
    expect(index.search('same', 10).map((hit) => hit.doc)).toEqual([0, 1, 2]);
  });

  it('keeps the best hits when more match than the limit', () => {
    const index = Bm25Index.build([
      doc('one term'),
      doc('term term term two'),
      doc('term'),
      doc('term and a lot of padding words around it'),
    ]);
    const all = index.search('term', 4);
    expect(index.search('term', 2)).toEqual(all.slice(0, 2));
  });

  it('only considers accepted documents', () => {
    const index = Bm25Index.build([doc('file'), doc('file'), doc('file')]);
    expect(index.search('file', 5, (d) => d !== 0).map((hit) => hit.doc)).toEqual([1, 2]);
  });

  it('finds nothing for unknown terms, an empty query, a zero limit or an empty index', () => {
    const index = Bm25Index.build([doc('file')]);
    expect(index.search('nothing here', 5)).toEqual([]);
    expect(index.search('   ', 5)).toEqual([]);
    expect(index.search('file', 0)).toEqual([]);
    expect(Bm25Index.build([]).search('file', 5)).toEqual([]);
  });
});

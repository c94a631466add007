/** Okapi BM25 over weighted fields: a small, precomputed, read-only ranker. */

/** One field of a document and how much a term in it counts (a BM25F-style boost). */
export interface WeightedText {
  text: string;
  weight: number;
}

export interface Bm25Options {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalisation. */
  b: number;
}

export interface Bm25Hit {
  doc: number;
  score: number;
}

const DEFAULTS: Bm25Options = { k1: 1.2, b: 0.75 };

const STOPWORDS = new Set(
  (
    'a an and any are as at be by can do does for from get give has have how i in into is it its ' +
    'me my of on or please show some that the their them then there these this those to use using ' +
    'want we what when where which who will with would you your'
  ).split(' '),
);

/**
 * Lower-case word stems of `text`. Splits camelCase, snake_case, kebab-case and dotted names, so
 * that `listPullRequests`, `list_pull_requests` and "list pull requests" share their terms.
 * `stems` memoises stemming across the texts of one index build.
 */
export function tokenize(text: string, stems?: Map<string, string>): string[] {
  const words = text
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u);
  const tokens: string[] = [];
  for (const word of words) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    let stemmed = stems?.get(word);
    if (stemmed === undefined) {
      stemmed = stem(word);
      stems?.set(word, stemmed);
    }
    tokens.push(stemmed);
  }
  return tokens;
}

/**
 * A light suffix stripper: plurals, -ing and -ed, then a final -e, so that "creates", "creating",
 * "created" and "create" meet. Applied alike to documents and queries, so the stems need not be
 * words; they only need to agree.
 */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word)) return word;
  let stemmed = word;
  if (stemmed.endsWith('ies') && stemmed.length > 4) stemmed = stemmed.slice(0, -3) + 'y';
  else if (/(ss|x|ch|sh)es$/.test(stemmed)) stemmed = stemmed.slice(0, -2);
  else if (stemmed.endsWith('s') && !/(ss|us|is)$/.test(stemmed)) stemmed = stemmed.slice(0, -1);
  if (stemmed.endsWith('ing') && stemmed.length > 5) stemmed = undouble(stemmed.slice(0, -3));
  else if (stemmed.endsWith('ed') && stemmed.length > 4) stemmed = undouble(stemmed.slice(0, -2));
  if (stemmed.endsWith('e') && stemmed.length > 3) stemmed = stemmed.slice(0, -1);
  return stemmed;
}

function undouble(word: string): string {
  return /([^aeiouslz])\1$/.test(word) ? word.slice(0, -1) : word;
}

/** Postings of one term: documents that hold it and the precomputed BM25 weight in each. */
interface Posting {
  docs: Int32Array;
  weights: Float64Array;
}

/**
 * An immutable index. Everything a query needs is precomputed at build time (idf times the
 * saturated, length-normalised term frequency per posting), so a query only adds up postings.
 */
export class Bm25Index {
  private constructor(
    private readonly postings: ReadonlyMap<string, Posting>,
    readonly size: number,
  ) {}

  static build(
    documents: readonly (readonly WeightedText[])[],
    options: Partial<Bm25Options> = {},
  ) {
    const { k1, b } = { ...DEFAULTS, ...options };
    const frequencies: Map<string, number>[] = [];
    const lengths = new Float64Array(documents.length);
    const documentFrequency = new Map<string, number>();
    const stems = new Map<string, string>();
    documents.forEach((fields, doc) => {
      const frequency = new Map<string, number>();
      for (const field of fields) {
        for (const token of tokenize(field.text, stems)) {
          frequency.set(token, (frequency.get(token) ?? 0) + field.weight);
          lengths[doc]! += field.weight;
        }
      }
      for (const term of frequency.keys())
        documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + 1);
      frequencies.push(frequency);
    });

    const count = documents.length;
    const averageLength =
      count === 0 ? 0 : lengths.reduce((sum, length) => sum + length, 0) / count;
    const building = new Map<string, { docs: number[]; weights: number[] }>();
    frequencies.forEach((frequency, doc) => {
      const norm = k1 * (1 - b + (b * lengths[doc]!) / (averageLength || 1));
      for (const [term, tf] of frequency) {
        const df = documentFrequency.get(term)!;
        const idf = Math.log(1 + (count - df + 0.5) / (df + 0.5));
        let posting = building.get(term);
        if (!posting) building.set(term, (posting = { docs: [], weights: [] }));
        posting.docs.push(doc);
        posting.weights.push((idf * tf * (k1 + 1)) / (tf + norm));
      }
    });
    const postings = new Map<string, Posting>();
    for (const [term, posting] of building) {
      postings.set(term, {
        docs: Int32Array.from(posting.docs),
        weights: Float64Array.from(posting.weights),
      });
    }
    return new Bm25Index(postings, count);
  }

  /**
   * The best `limit` documents for `query` with a score above zero, best first; ties go to the
   * lower document number. `accept` restricts the documents considered.
   */
  search(query: string, limit: number, accept?: (doc: number) => boolean): Bm25Hit[] {
    const terms = [...new Set(tokenize(query))];
    if (terms.length === 0 || limit < 1) return [];
    const scores = new Float64Array(this.size);
    const touched: number[] = [];
    for (const term of terms) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i]!;
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += posting.weights[i]!;
      }
    }
    const best: Bm25Hit[] = [];
    for (const doc of touched) {
      const score = scores[doc]!;
      if (score <= 0 || (accept && !accept(doc))) continue;
      if (best.length === limit) {
        if (!outranks(doc, score, best[limit - 1]!)) continue;
        best.pop();
      }
      let at = best.length;
      while (at > 0 && outranks(doc, score, best[at - 1]!)) at--;
      best.splice(at, 0, { doc, score });
    }
    return best;
  }
}

function outranks(doc: number, score: number, other: Bm25Hit): boolean {
  return score > other.score || (score === other.score && doc < other.doc);
}

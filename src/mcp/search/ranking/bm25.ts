import { expand } from './synonyms';
import { queryTerms, terms } from '../../../common/terms';
import { type TimeSlicer } from '../../../common/time-slicer';

/** One field of a document and how much a term in it counts (a BM25F-style boost). */
export interface WeightedText {
  text: string;
  weight: number;
}

/**
 * What BM25 needs of one document: its distinct terms with their weighted counts, and its
 * weighted length. Computed once per document content and reused across index builds.
 */
export interface TermCounts {
  terms: readonly string[];
  counts: Float32Array;
  length: number;
}

export function termCounts(fields: readonly WeightedText[]): TermCounts {
  const counts = new Map<string, number>();
  let length = 0;
  for (const field of fields) {
    for (const term of terms(field.text)) {
      counts.set(term, (counts.get(term) ?? 0) + field.weight);
      length += field.weight;
    }
  }
  return { terms: [...counts.keys()], counts: Float32Array.from(counts.values()), length };
}

export interface Bm25Options {
  /** Term-frequency saturation. */
  k1: number;
  /** Length normalisation. */
  b: number;
}

const DEFAULTS: Bm25Options = { k1: 1.2, b: 0.75 };

/** Documents that hold a term, with the saturated, length-normalised frequency in each. */
interface Posting {
  idf: number;
  docs: Int32Array;
  frequencies: Float32Array;
}

/** Scores of one query: every document's, and which documents have one above zero. */
export interface Bm25Scores {
  scores: Float64Array;
  touched: readonly number[];
}

/**
 * An immutable Okapi BM25 index. Everything but the sum is precomputed at build time, so a query
 * only adds up postings. Each query term also reaches its synonyms at a reduced weight; a
 * document counts only the best of a term and its synonyms, so synonyms never add up to more
 * than the word itself.
 */
export class Bm25Index {
  private readonly scores: Float64Array;
  private readonly best: Float64Array;
  private readonly touched: number[] = [];

  private constructor(
    private readonly postings: ReadonlyMap<string, Posting>,
    readonly size: number,
  ) {
    this.scores = new Float64Array(size);
    this.best = new Float64Array(size);
  }

  static async build(
    documents: readonly TermCounts[],
    slicer: TimeSlicer,
    options: Partial<Bm25Options> = {},
  ): Promise<Bm25Index> {
    const { k1, b } = { ...DEFAULTS, ...options };
    const count = documents.length;
    const averageLength =
      count === 0 ? 1 : documents.reduce((sum, doc) => sum + doc.length, 0) / count || 1;
    const building = new Map<string, { docs: number[]; frequencies: number[] }>();
    for (let doc = 0; doc < count; doc++) {
      const { terms: docTerms, counts, length } = documents[doc]!;
      const norm = k1 * (1 - b + (b * length) / averageLength);
      for (let i = 0; i < docTerms.length; i++) {
        const tf = counts[i]!;
        let posting = building.get(docTerms[i]!);
        if (!posting) building.set(docTerms[i]!, (posting = { docs: [], frequencies: [] }));
        posting.docs.push(doc);
        posting.frequencies.push((tf * (k1 + 1)) / (tf + norm));
      }
      if ((doc & 255) === 0) await slicer.check();
    }
    const postings = new Map<string, Posting>();
    let done = 0;
    for (const [term, posting] of building) {
      const df = posting.docs.length;
      postings.set(term, {
        idf: Math.log(1 + (count - df + 0.5) / (df + 0.5)),
        docs: Int32Array.from(posting.docs),
        frequencies: Float32Array.from(posting.frequencies),
      });
      if ((++done & 1023) === 0) await slicer.check();
    }
    return new Bm25Index(postings, count);
  }

  /**
   * BM25 scores of `query`, its terms reaching their synonyms at `synonymWeight`. The arrays are
   * the index's own and valid until its next query: queries run one at a time, and reusing them
   * keeps a query from allocating (and collecting) two arrays per document.
   */
  score(query: string, synonymWeight: number): Bm25Scores {
    const scores = this.scores;
    const best = this.best;
    for (const doc of this.touched) scores[doc] = 0;
    const touched = this.touched;
    touched.length = 0;
    const reached: number[] = [];
    for (const term of new Set(queryTerms(query))) {
      for (const { term: other, weight } of expand(term, synonymWeight)) {
        const posting = this.postings.get(other);
        if (!posting) continue;
        const scale = weight * posting.idf;
        const { docs, frequencies } = posting;
        for (let i = 0; i < docs.length; i++) {
          const doc = docs[i]!;
          const value = scale * frequencies[i]!;
          const current = best[doc]!;
          if (current === 0) reached.push(doc);
          if (value > current) best[doc] = value;
        }
      }
      for (const doc of reached) {
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += best[doc]!;
        best[doc] = 0;
      }
      reached.length = 0;
    }
    return { scores, touched };
  }
}

import { expand } from './synonyms';
import { queryTerms, terms } from '../../../common/terms';
import { type TimeSlicer } from '../../../common/time-slicer';

/** Share of each document's name terms that one query reaches, and which documents have any. */
export interface NameCoverage {
  scores: Float64Array;
  touched: readonly number[];
}

/**
 * How much of a tool's name a query covers. A tool's name is its shortest full description
 * (`list_channels`, `get_channel_history`): of two siblings that a request matches alike, the one
 * whose name it says more of is more likely the one meant, whatever the descriptions repeat.
 */
export class NameIndex {
  private readonly scores: Float64Array;
  private readonly touched: number[] = [];

  private constructor(
    /** Term to the documents whose name holds it. */
    private readonly postings: ReadonlyMap<string, Int32Array>,
    /** Per document, 1 / the number of distinct terms of its name (0 for none). */
    private readonly shares: Float64Array,
  ) {
    this.scores = new Float64Array(shares.length);
  }

  /** `names` holds each document's name terms, as `nameTerms` gives them. */
  static async build(
    names: readonly (readonly string[])[],
    slicer: TimeSlicer,
  ): Promise<NameIndex> {
    const building = new Map<string, number[]>();
    const shares = new Float64Array(names.length);
    for (let doc = 0; doc < names.length; doc++) {
      const name = names[doc]!;
      shares[doc] = name.length === 0 ? 0 : 1 / name.length;
      for (const term of name) {
        let docs = building.get(term);
        if (!docs) building.set(term, (docs = []));
        docs.push(doc);
      }
      if ((doc & 1023) === 0) await slicer.check();
    }
    const postings = new Map<string, Int32Array>();
    for (const [term, docs] of building) postings.set(term, Int32Array.from(docs));
    return new NameIndex(postings, shares);
  }

  /**
   * Per document, the share of its name terms that `query` reaches, a synonym counting
   * `synonymWeight`. The arrays are the index's own and valid until its next query.
   */
  coverage(query: string, synonymWeight: number): NameCoverage {
    const { scores, touched, shares } = this;
    for (const doc of touched) scores[doc] = 0;
    touched.length = 0;
    const reached = new Map<string, number>();
    for (const term of new Set(queryTerms(query)))
      for (const { term: other, weight } of expand(term, synonymWeight))
        if (weight > (reached.get(other) ?? 0)) reached.set(other, weight);
    for (const [term, weight] of reached) {
      const docs = this.postings.get(term);
      if (!docs) continue;
      for (const doc of docs) {
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += weight * shares[doc]!;
      }
    }
    return { scores, touched };
  }
}

/** The distinct terms of a tool's name, as NameIndex counts them. */
export function nameTerms(name: string): string[] {
  return [...new Set(terms(name))];
}

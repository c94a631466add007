import { Bm25Index, type TermCounts } from './bm25';
import { type Ranked, standardise, standardiseSparse, TopK } from './fusion';
import { Action, Agreement, agreement, queryAction } from './intent';
import { NameIndex } from './name-coverage';
import { type TimeSlicer } from '../../../common/time-slicer';

/** How the rankers combine; chosen on the tuning half of the evaluation set (see bench/). */
export interface RankingWeights {
  /** A match on a synonym, against one on the word itself. */
  synonyms: number;
  /** Weight of the standardised BM25 score. */
  lexical: number;
  /** Weight of the standardised similarity of the embedded word vectors. */
  semantic: number;
  /** Weight of the standardised similarity of the embeddings provider's vectors. */
  provider: number;
  /**
   * A tool that shares no term with the query is a hit only when its semantic score stands this
   * many deviations above the mean: near in meaning, not merely less far than the rest.
   */
  semanticOnlyZ: number;
  /** Weight of the share of a tool's name the query covers. */
  nameCoverage: number;
  /** Added when a tool's action is the one the request asks for (in deviations of the fusion). */
  intentMatch: number;
  /** Added when both read, in different ways (listing, searching, getting one). */
  intentNear: number;
  /** Taken off when a tool's action is one the request does not ask for. */
  intentConflict: number;
}

export const RANKING_WEIGHTS: RankingWeights = {
  synonyms: 0.7,
  lexical: 1,
  semantic: 0.25,
  provider: 0.25,
  semanticOnlyZ: 2.5,
  nameCoverage: 3,
  intentMatch: 1,
  intentNear: 0,
  intentConflict: 1,
};

/** What the index keeps of one document. */
export interface IndexedDocument {
  counts: TermCounts;
  /** Unit-length vector from the embedded word vectors; null when none of its words is known. */
  vector: Float32Array | null;
  /** What the tool does, from the verb of its name; null or absent when it names none. */
  action?: Action | null;
  /** The distinct terms of its upstream name (see nameTerms); absent counts as none. */
  name?: readonly string[];
}

/** Vectors of one embedding space, one row per document (zeros where a document has none). */
class VectorMatrix {
  /** Reused by every query, as queries run one at a time. */
  private readonly out: Float32Array;

  private constructor(
    readonly dims: number,
    private readonly rows: Float32Array,
    readonly size: number,
  ) {
    this.out = new Float32Array(size);
  }

  static async build(
    vectors: readonly (Float32Array | null)[],
    slicer: TimeSlicer,
  ): Promise<VectorMatrix | null> {
    const dims = vectors.find((vector) => vector !== null)?.length;
    if (dims === undefined) return null;
    const rows = new Float32Array(vectors.length * dims);
    for (let doc = 0; doc < vectors.length; doc++) {
      const vector = vectors[doc];
      if (vector && vector.length === dims) rows.set(vector, doc * dims);
      if ((doc & 1023) === 0) await slicer.check();
    }
    return new VectorMatrix(dims, rows, vectors.length);
  }

  /** Cosine similarity of every row with `query` (all unit length); valid until the next call. */
  similarities(query: Float32Array): Float32Array {
    const { dims, rows, size, out } = this;
    if (query.length !== dims) return out.fill(0);
    // Four sums at a time: the loop is most of a query's time at 10,000 tools.
    const whole = dims - (dims % 4);
    for (let doc = 0, offset = 0; doc < size; doc++, offset += dims) {
      let a = 0;
      let b = 0;
      let c = 0;
      let d = 0;
      let j = 0;
      for (; j < whole; j += 4) {
        a += rows[offset + j]! * query[j]!;
        b += rows[offset + j + 1]! * query[j + 1]!;
        c += rows[offset + j + 2]! * query[j + 2]!;
        d += rows[offset + j + 3]! * query[j + 3]!;
      }
      for (; j < dims; j++) a += rows[offset + j]! * query[j]!;
      out[doc] = a + b + c + d;
    }
    return out;
  }
}

/** The vectors of a query, one per embedding space; null where there is none. */
export interface QueryVectors {
  local: Float32Array | null;
  provider: Float32Array | null;
}

/**
 * Hybrid retrieval over a fixed list of documents: BM25 with synonyms, fused per query with the
 * cosine similarity of embedded word vectors and, when a provider is set, of its embeddings.
 * Each ranker's scores are standardised over every document before they are weighted and added,
 * so a tool that only one ranker finds still ranks by how far that ranker sets it apart.
 */
export class HybridIndex {
  private constructor(
    private readonly bm25: Bm25Index,
    private readonly names: NameIndex,
    private readonly local: VectorMatrix | null,
    private readonly provider: VectorMatrix | null,
    /** Per document, its Action, or 0 when it has none. */
    private readonly actions: Uint8Array,
    readonly size: number,
    private readonly weights: RankingWeights,
  ) {}

  static async build(
    documents: readonly IndexedDocument[],
    providerVectors: readonly (Float32Array | null)[] | null,
    slicer: TimeSlicer,
    weights: RankingWeights = RANKING_WEIGHTS,
  ): Promise<HybridIndex> {
    const bm25 = await Bm25Index.build(
      documents.map((doc) => doc.counts),
      slicer,
    );
    const names = await NameIndex.build(
      documents.map((doc) => doc.name ?? []),
      slicer,
    );
    const local = await VectorMatrix.build(
      documents.map((doc) => doc.vector),
      slicer,
    );
    const provider = providerVectors && (await VectorMatrix.build(providerVectors, slicer));
    const actions = Uint8Array.from(documents, (doc) => doc.action ?? 0);
    return new HybridIndex(bm25, names, local, provider, actions, documents.length, weights);
  }

  /** Whether provider vectors were indexed, so that a provider query vector is worth asking for. */
  get hasProviderVectors(): boolean {
    return this.provider !== null;
  }

  /** The best `limit` documents for `query` among those `accept` admits, best first. */
  rank(
    query: string,
    vectors: QueryVectors,
    limit: number,
    accept?: (doc: number) => boolean,
  ): Ranked[] {
    const { weights, size } = this;
    if (limit < 1 || size === 0) return [];
    const lexical = this.bm25.score(query, weights.synonyms);
    const lexicalZ = standardiseSparse(lexical.scores, lexical.touched, size);
    // Among n scores none stands more than sqrt(n - 1) deviations above the mean, so in a small
    // catalogue the bar for a tool no term matched is set below that reach.
    const bar = Math.min(weights.semanticOnlyZ, 0.8 * Math.sqrt(size - 1));
    const semantic: { scores: Float32Array; weight: number; mean: number; near: number }[] = [];
    for (const [matrix, vector, weight] of [
      [this.local, vectors.local, weights.semantic],
      [this.provider, vectors.provider, weights.provider],
    ] as const) {
      if (!matrix || !vector || weight === 0) continue;
      const scores = matrix.similarities(vector);
      const z = standardise(scores);
      if (z.inverseDeviation === 0) continue;
      semantic.push({
        scores,
        weight: weight * z.inverseDeviation,
        mean: z.mean,
        near: z.mean + bar / z.inverseDeviation,
      });
    }
    if (lexical.touched.length === 0 && semantic.length === 0) return [];
    const lexicalScale = weights.lexical * lexicalZ.inverseDeviation;
    const intent = this.intentScores(query);
    const names = this.names.coverage(query, weights.synonyms).scores;
    const top = new TopK(limit);
    for (let doc = 0; doc < size; doc++) {
      let semanticScore = 0;
      // A tool no query term matched is a hit only when some ranker sets it well apart.
      let near = lexical.scores[doc]! > 0;
      for (const part of semantic) {
        const score = part.scores[doc]!;
        semanticScore += part.weight * (score - part.mean);
        if (score >= part.near) near = true;
      }
      if (!near) continue;
      if (accept && !accept(doc)) continue;
      const fused = lexicalScale * (lexical.scores[doc]! - lexicalZ.mean) + semanticScore;
      const structure = weights.nameCoverage * names[doc]! + intent[this.actions[doc]!]!;
      top.offer(doc, fused + structure);
    }
    return top.items;
  }

  /** What a tool of each action (by its number; 0 for none) gains or loses for this query. */
  private intentScores(query: string): Float64Array {
    const scores = new Float64Array(Action.Run + 1);
    const wanted = queryAction(query);
    if (wanted === null) return scores;
    for (let action = Action.Read; action <= Action.Run; action++)
      scores[action] = this.intentWeight(agreement(wanted, action));
    return scores;
  }

  private intentWeight(agree: Agreement): number {
    switch (agree) {
      case Agreement.Same:
        return this.weights.intentMatch;
      case Agreement.Near:
        return this.weights.intentNear;
      case Agreement.Neutral:
        return 0;
      case Agreement.Conflict:
        return -this.weights.intentConflict;
    }
  }
}

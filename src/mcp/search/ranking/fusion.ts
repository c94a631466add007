/**
 * Per-query standardisation of one ranker's scores: z = (score - mean) / deviation over every
 * document. Rankers with different scales then add up; a ranker that tells nothing apart for this
 * query (all scores equal) adds nothing, rather than noise.
 */
export interface Standardised {
  mean: number;
  /** 0 when every document scored the same. */
  inverseDeviation: number;
}

export function standardise(scores: Float64Array | Float32Array): Standardised {
  const n = scores.length;
  if (n === 0) return { mean: 0, inverseDeviation: 0 };
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const x = scores[i]!;
    sum += x;
    squares += x * x;
  }
  return standardised(sum, squares, n);
}

/** The same for sparse scores: `touched` lists the documents with a score other than zero. */
export function standardiseSparse(
  scores: Float64Array,
  touched: readonly number[],
  n: number,
): Standardised {
  if (n === 0) return { mean: 0, inverseDeviation: 0 };
  let sum = 0;
  let squares = 0;
  for (const doc of touched) {
    const x = scores[doc]!;
    sum += x;
    squares += x * x;
  }
  return standardised(sum, squares, n);
}

function standardised(sum: number, squares: number, n: number): Standardised {
  const mean = sum / n;
  const variance = squares / n - mean * mean;
  return { mean, inverseDeviation: variance > 1e-12 ? 1 / Math.sqrt(variance) : 0 };
}

export interface Ranked {
  doc: number;
  score: number;
}

/** Keeps the best `limit` documents seen, best first; ties go to the lower document number. */
export class TopK {
  readonly items: Ranked[] = [];

  constructor(private readonly limit: number) {}

  offer(doc: number, score: number): void {
    const items = this.items;
    if (this.limit < 1) return;
    if (items.length === this.limit) {
      const last = items[this.limit - 1]!;
      if (!(score > last.score || (score === last.score && doc < last.doc))) return;
      items.pop();
    }
    let at = items.length;
    while (at > 0) {
      const other = items[at - 1]!;
      if (!(score > other.score || (score === other.score && doc < other.doc))) break;
      at--;
    }
    items.splice(at, 0, { doc, score });
  }
}

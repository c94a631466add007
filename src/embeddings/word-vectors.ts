import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { gunzip } from 'node:zlib';
import { stem, words as wordsOf } from '../common/terms';
import { TimeSlicer } from '../common/time-slicer';

/** The committed table, beside this file in the sources and in the build. */
export const WORD_VECTORS_FILE = 'word-vectors.bin.gz';

const MAGIC = 'PWV1';
const gunzipAsync = promisify(gunzip);

/**
 * Packs a table: the magic, word count and dimensions, one float32 weight and one float32 scale
 * per word, the int8 rows (each scaled to use the whole int8 range), then the words, one a line.
 */
export function encodeWordVectors(
  words: readonly string[],
  weights: readonly number[],
  rows: readonly Float64Array[],
): Buffer {
  const count = words.length;
  const dims = rows[0]?.length ?? 0;
  const header = Buffer.alloc(12 + count * 8 + count * dims);
  header.write(MAGIC, 0, 'latin1');
  header.writeUInt32LE(count, 4);
  header.writeUInt32LE(dims, 8);
  rows.forEach((row, i) => {
    const scale = Math.max(...row.map(Math.abs)) / 127 || 1;
    header.writeFloatLE(weights[i]!, 12 + i * 4);
    header.writeFloatLE(scale, 12 + count * 4 + i * 4);
    row.forEach((x, j) => header.writeInt8(Math.round(x / scale), 12 + count * 8 + i * dims + j));
  });
  return Buffer.concat([header, Buffer.from(words.join('\n'), 'utf8')]);
}

/**
 * A static word-vector table: a sentence's vector is the weighted sum of its words' vectors. It
 * costs a few microseconds per sentence where the model it was distilled from costs tens of
 * milliseconds, and it needs no runtime beyond this file.
 */
export class WordVectors {
  private constructor(
    readonly dims: number,
    private readonly weights: Float32Array,
    private readonly scales: Float32Array,
    private readonly values: Int8Array,
    private readonly index: ReadonlyMap<string, number>,
    /** A word missing from the table is looked up by its stem. */
    private readonly byStem: ReadonlyMap<string, number>,
  ) {}

  /** Decodes in slices of the event loop: the table holds some 50,000 words. */
  static async decode(data: Buffer, slicer = new TimeSlicer(10)): Promise<WordVectors> {
    if (data.toString('latin1', 0, 4) !== MAGIC) throw new Error('Not a word-vector table');
    const count = data.readUInt32LE(4);
    const dims = data.readUInt32LE(8);
    const weights = new Float32Array(count);
    const scales = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      weights[i] = data.readFloatLE(12 + i * 4);
      scales[i] = data.readFloatLE(12 + count * 4 + i * 4);
    }
    const start = 12 + count * 8;
    const values = new Int8Array(count * dims);
    values.set(new Int8Array(data.buffer, data.byteOffset + start, count * dims));
    const words = data.toString('utf8', start + count * dims).split('\n');
    if (words.length !== count) throw new Error('Word-vector table is truncated');
    const index = new Map<string, number>();
    const byStem = new Map<string, number>();
    for (let row = 0; row < count; row++) {
      const word = words[row]!;
      index.set(word, row);
      const key = stem(word);
      if (!byStem.has(key)) byStem.set(key, row);
      if ((row & 511) === 0) await slicer.check();
    }
    return new WordVectors(dims, weights, scales, values, index, byStem);
  }

  /** The committed table. Decompression runs off the event loop. */
  static async load(file = join(__dirname, WORD_VECTORS_FILE)): Promise<WordVectors> {
    return await WordVectors.decode(await gunzipAsync(await readFile(file)));
  }

  get words(): number {
    return this.index.size;
  }

  /** Bytes the table holds in memory, words and index aside. */
  get bytes(): number {
    return this.values.byteLength + this.weights.byteLength + this.scales.byteLength;
  }

  /**
   * The unit-length vector of `text`, or null when it holds no known word. A word missing from
   * the table is looked up by its stem, so that "deployments" finds "deployment".
   */
  embed(text: string): Float32Array | null {
    const vector = new Float32Array(this.dims);
    let found = false;
    for (const word of wordsOf(text)) {
      const row = this.row(word);
      if (row === undefined) continue;
      const scale = this.weights[row]! * this.scales[row]!;
      const offset = row * this.dims;
      for (let j = 0; j < this.dims; j++) vector[j]! += scale * this.values[offset + j]!;
      found = true;
    }
    if (!found) return null;
    let norm = 0;
    for (const x of vector) norm += x * x;
    norm = Math.sqrt(norm);
    if (norm === 0) return null;
    for (let j = 0; j < this.dims; j++) vector[j]! /= norm;
    return vector;
  }

  private row(word: string): number | undefined {
    return this.index.get(word) ?? this.byStem.get(stem(word));
  }
}

import { encodeWordVectors, WordVectors } from './word-vectors';

const table = () =>
  WordVectors.decode(
    encodeWordVectors(
      ['mail', 'deployment', 'weather', 'the'],
      [1, 1, 1, 0.01],
      [
        Float64Array.from([1, 0, 0]),
        Float64Array.from([0, 1, 0]),
        Float64Array.from([0, 0, 1]),
        Float64Array.from([1, 1, 1]),
      ],
    ),
  );

const cosine = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * b[i]!, 0);

describe('WordVectors', () => {
  it('embeds a text as the unit-length weighted sum of its words', async () => {
    const vectors = await table();
    expect(vectors.dims).toBe(3);
    expect(vectors.words).toBe(4);
    const mail = vectors.embed('Mail')!;
    expect(Array.from(mail)).toEqual([1, 0, 0]);
    const both = vectors.embed('mail the weather')!;
    expect(Math.hypot(...both)).toBeCloseTo(1, 6);
    expect(cosine(both, vectors.embed('mail')!)).toBeCloseTo(
      cosine(both, vectors.embed('weather')!),
      2,
    );
  });

  it('finds a word missing from the table by its stem, and knows nothing of unknown words', async () => {
    const vectors = await table();
    expect(Array.from(vectors.embed('deployments')!)).toEqual([0, 1, 0]);
    expect(vectors.embed('zzqx ((( ')).toBeNull();
  });

  it('refuses a file that is not a table, or is cut short', async () => {
    await expect(WordVectors.decode(Buffer.from('nope'))).rejects.toThrow(
      'Not a word-vector table',
    );
    const whole = encodeWordVectors(
      ['a1', 'b2'],
      [1, 1],
      [Float64Array.from([1]), Float64Array.from([1])],
    );
    await expect(WordVectors.decode(whole.subarray(0, whole.length - 3))).rejects.toThrow(
      'truncated',
    );
  });

  it('loads the committed table, distilled from the sentence encoder', async () => {
    const vectors = await WordVectors.load();
    expect(vectors.words).toBeGreaterThan(40_000);
    expect(vectors.dims).toBe(64);
    const similarity = (a: string, b: string) => cosine(vectors.embed(a)!, vectors.embed(b)!);
    expect(similarity('send an email', 'mail a letter')).toBeGreaterThan(
      similarity('send an email', 'scale the cluster'),
    );
  });
});

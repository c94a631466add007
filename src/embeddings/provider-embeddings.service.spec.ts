import {
  type EmbeddingsFixture,
  startEmbeddingsServer,
} from '../../test/fixtures/embeddings-server';
import { tempDataDir } from '../../test/support/temp-dir';
import { loadConfig } from '../config/load-config';
import { Metrics } from '../observability/metrics';
import { EmbeddingsMetrics } from './embeddings-metrics';
import { ProviderEmbeddings } from './provider-embeddings.service';
import { type ToolVectorStore } from './tool-vector.store';

/** The store as the service uses it, in memory. */
class MemoryVectors {
  readonly rows = new Map<string, Float32Array>();

  async load(model: string, hashes: readonly string[]) {
    const found = new Map<string, Float32Array>();
    for (const hash of hashes) {
      const row = this.rows.get(`${model}/${hash}`);
      if (row) found.set(hash, row);
    }
    return found;
  }

  async save(model: string, vectors: ReadonlyMap<string, Float32Array>) {
    for (const [hash, vector] of vectors) this.rows.set(`${model}/${hash}`, vector);
  }
}

describe('ProviderEmbeddings', () => {
  let fixture: EmbeddingsFixture;
  beforeAll(async () => {
    fixture = await startEmbeddingsServer();
  });
  afterAll(() => fixture.close());

  function setUp() {
    const store = new MemoryVectors();
    const metrics = new EmbeddingsMetrics(new Metrics());
    const provider = new ProviderEmbeddings(
      loadConfig({
        DATA_DIR: tempDataDir(),
        EMBEDDINGS_URL: fixture.url,
        EMBEDDINGS_MODEL: 'concepts-1',
        // Far below the fixture's 2 s when slow, yet room for a loaded machine's first answer.
        EMBEDDINGS_QUERY_TIMEOUT_MS: '500',
      }),
      store as unknown as ToolVectorStore,
      metrics,
    );
    const count = async (reason: string) =>
      (await metrics.fallbacks.get()).values.find((v) => v.labels.reason === reason)?.value ?? 0;
    return { store, provider, count };
  }

  it('embeds each tool text once: from memory, then the store, then the provider', async () => {
    const { store, provider } = setUp();
    const inputs = [
      { hash: 'h-mail', text: 'send mail' },
      { hash: 'h-rain', text: 'rain' },
      { hash: 'h-mail', text: 'send mail' },
    ];
    store.rows.set('concepts-1/h-rain', Float32Array.from([0, 1, 0, 0]));
    const before = fixture.requests.length;
    const vectors = await provider.embedTools(inputs);
    expect(vectors.map((vector) => Array.from(vector))).toEqual([
      [1, 0, 0, 0],
      [0, 1, 0, 0],
      [1, 0, 0, 0],
    ]);
    expect(fixture.requests.slice(before).map((request) => request.input)).toEqual([['send mail']]);
    expect(store.rows.has('concepts-1/h-mail')).toBe(true);
    await provider.embedTools(inputs);
    expect(fixture.requests).toHaveLength(before + 1);
  });

  it('falls back on a slow provider, then leaves it alone for a while, counting both', async () => {
    const { provider, count } = setUp();
    expect(Array.from((await provider.embedQuery('weather today'))!)).toEqual([0, 1, 0, 0]);
    fixture.mode = 'slow';
    try {
      expect(await provider.embedQuery('mail to Bo')).toBeNull();
      expect(await count('timeout')).toBe(1);
      const asked = fixture.requests.length;
      expect(await provider.embedQuery('mail to Al')).toBeNull();
      expect(await count('circuit_open')).toBe(1);
      expect(fixture.requests).toHaveLength(asked);
      // A query it already embedded needs no round trip.
      expect(await provider.embedQuery('weather today')).not.toBeNull();
    } finally {
      fixture.mode = 'ok';
    }
  });

  it('lets a failed tool embedding throw, so that the catalogue ranks without any', async () => {
    const { provider } = setUp();
    fixture.mode = 'down';
    try {
      await expect(provider.embedTools([{ hash: 'h-x', text: 'x' }])).rejects.toThrow('HTTP 503');
    } finally {
      fixture.mode = 'ok';
    }
  });
});

import { Injectable, Logger } from '@nestjs/common';
import { EmbeddingsSettings } from '../config/slices/embeddings.settings';
import { EMBEDDINGS_BATCH, EmbeddingsClient, EmbeddingsError } from './embeddings-client';
import { EmbeddingsMetrics, type FallbackReason } from './embeddings-metrics';
import { ToolVectorStore } from './tool-vector.store';
import { Memo } from '../common/memo';

/** After a failed query, searches skip the provider this long instead of each waiting it out. */
const CIRCUIT_OPEN_MS = 30_000;
/** Recent query vectors kept, so that a repeated search costs no round trip. */
const QUERY_CACHE = 500;
/** Tool vectors kept in memory across catalogue builds. */
const TOOL_CACHE = 50_000;

/** A text to embed and the sha256 that keys its vector. */
export interface EmbeddingInput {
  hash: string;
  text: string;
}

/**
 * The embeddings provider as tool search uses it. Tool vectors come from memory, then from
 * PostgreSQL, then from the provider (and are stored for every replica); a query's vector comes
 * from the provider within a budget. When the provider is slow or down, search ranks without it
 * and counts why in `portico_tool_search_provider_fallbacks_total`.
 */
@Injectable()
export class ProviderEmbeddings {
  private readonly logger = new Logger(ProviderEmbeddings.name);
  private readonly client: EmbeddingsClient | null;
  private readonly toolVectors = new Memo<string, Float32Array>(TOOL_CACHE);
  private readonly queryVectors = new Memo<string, Float32Array>(QUERY_CACHE);
  private circuitOpenUntil = 0;

  constructor(
    private readonly config: EmbeddingsSettings,
    private readonly store: ToolVectorStore,
    private readonly metrics: EmbeddingsMetrics,
  ) {
    this.client = config.embeddings ? new EmbeddingsClient(config.embeddings) : null;
  }

  get enabled(): boolean {
    return this.client !== null;
  }

  /**
   * The provider's vectors of `inputs`, in order. Throws when the provider fails, so that a
   * catalogue keeps ranking without provider vectors rather than with a part of them.
   */
  async embedTools(inputs: readonly EmbeddingInput[]): Promise<Float32Array[]> {
    const client = this.client;
    if (!client) throw new Error('No embeddings provider is configured');
    const found = new Map<string, Float32Array>();
    const missing = new Map<string, EmbeddingInput>();
    for (const input of inputs) {
      const known = this.toolVectors.get(input.hash);
      if (known) found.set(input.hash, known);
      else missing.set(input.hash, input);
    }
    if (missing.size > 0) {
      const stored = await this.store.load(client.model, [...missing.keys()]);
      for (const [hash, vector] of stored) found.set(hash, this.toolVectors.remember(hash, vector));
      const unknown = [...missing.values()].filter((input) => !stored.has(input.hash));
      for (let start = 0; start < unknown.length; start += EMBEDDINGS_BATCH) {
        const batch = unknown.slice(start, start + EMBEDDINGS_BATCH);
        const vectors = await this.request('index', () =>
          client.embed(
            batch.map((input) => input.text),
            this.config.embeddings!.indexTimeoutMs,
          ),
        );
        const fresh = new Map(batch.map((input, i) => [input.hash, vectors[i]!]));
        await this.store.save(client.model, fresh);
        for (const [hash, vector] of fresh)
          found.set(hash, this.toolVectors.remember(hash, vector));
      }
    }
    return inputs.map((input) => found.get(input.hash)!);
  }

  /**
   * The query's vector, or null after counting why there is none: the provider failed or took
   * longer than EMBEDDINGS_QUERY_TIMEOUT_MS, or failed recently and is being left alone.
   */
  async embedQuery(query: string): Promise<Float32Array | null> {
    const client = this.client;
    if (!client) return null;
    const cached = this.queryVectors.get(query);
    if (cached) return cached;
    if (Date.now() < this.circuitOpenUntil) return this.fallBack('circuit_open');
    try {
      const [vector] = await this.request('query', () =>
        client.embed([query], this.config.embeddings!.queryTimeoutMs),
      );
      return this.queryVectors.remember(query, vector!);
    } catch (error) {
      this.circuitOpenUntil = Date.now() + CIRCUIT_OPEN_MS;
      this.logger.warn(`tool_search ranks without the embeddings provider: ${String(error)}`);
      return this.fallBack(error instanceof EmbeddingsError ? error.reason : 'error');
    }
  }

  /** Counts a search ranked without the provider although one is set. */
  fallBack(reason: FallbackReason): null {
    this.metrics.fallbacks.inc({ reason });
    return null;
  }

  private async request<T>(stage: 'query' | 'index', send: () => Promise<T>): Promise<T> {
    try {
      const result = await send();
      this.metrics.requests.inc({ stage, outcome: 'ok' });
      return result;
    } catch (error) {
      const outcome = error instanceof EmbeddingsError ? error.reason : 'error';
      this.metrics.requests.inc({ stage, outcome });
      throw error;
    }
  }
}

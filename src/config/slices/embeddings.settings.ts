/**
 * An OpenAI-compatible embeddings endpoint (`POST {url}/embeddings`) that tool search fuses with
 * its embedded rankers. Null when EMBEDDINGS_URL is unset: the embedded rankers work alone.
 */
export interface EmbeddingsConfig {
  url: string;
  model: string;
  /** Sent as a bearer token; never logged or returned. */
  apiKey: string | null;
  /** How long a search waits for the query's vector before it ranks without it. */
  queryTimeoutMs: number;
  /** How long one request for a batch of tool vectors may take. */
  indexTimeoutMs: number;
}

/** The embeddings endpoint tool search may fuse with its own rankers. Injected by the modules that need it. */
export abstract class EmbeddingsSettings {
  abstract readonly embeddings: EmbeddingsConfig | null;
}

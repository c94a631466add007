import { BodyTooLarge, cappedResponse } from '../common/remote-body';
import { type EmbeddingsConfig } from '../config/slices/embeddings.settings';

/** Why a request to the embeddings provider gave no vectors. */
export type EmbeddingsFailure = 'timeout' | 'error';

export class EmbeddingsError extends Error {
  constructor(
    readonly reason: EmbeddingsFailure,
    message: string,
  ) {
    super(message);
  }
}

interface EmbeddingsResponse {
  data?: { index?: unknown; embedding?: unknown }[];
}

/** Most inputs sent in one request; OpenAI accepts 2,048, self-hosted servers often fewer. */
export const EMBEDDINGS_BATCH = 64;

/** The most of one answer read: a batch of 4,096-dimension vectors is about 6 MiB of JSON. */
const ANSWER_MAX_BYTES = 16 * 1024 * 1024;

/**
 * A client of an OpenAI-compatible embeddings endpoint: `POST {url}/embeddings` with
 * `{ model, input: [...] }`, answered by `{ data: [{ index, embedding }] }`. Every vector comes
 * back unit length, so that a dot product is the cosine similarity whatever the model returns.
 */
export class EmbeddingsClient {
  private readonly endpoint: string;

  constructor(private readonly config: EmbeddingsConfig) {
    this.endpoint = config.url.endsWith('/embeddings') ? config.url : `${config.url}/embeddings`;
  }

  get model(): string {
    return this.config.model;
  }

  async embed(input: readonly string[], timeoutMs: number): Promise<Float32Array[]> {
    if (input.length === 0) return [];
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.config.apiKey !== null) headers.authorization = `Bearer ${this.config.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers,
        body: JSON.stringify({ model: this.config.model, input }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new EmbeddingsError(
        timedOut(error) ? 'timeout' : 'error',
        timedOut(error)
          ? `embeddings provider did not answer within ${timeoutMs} ms`
          : `embeddings provider unreachable: ${String(error)}`,
      );
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new EmbeddingsError('error', `embeddings provider answered HTTP ${response.status}`);
    }
    let body: EmbeddingsResponse;
    try {
      body = (await cappedResponse(response, ANSWER_MAX_BYTES).json()) as EmbeddingsResponse;
    } catch (error) {
      throw new EmbeddingsError(
        timedOut(error) ? 'timeout' : 'error',
        error instanceof BodyTooLarge
          ? `embeddings provider answered more than ${ANSWER_MAX_BYTES} bytes`
          : 'embeddings provider sent no JSON in time',
      );
    }
    return vectorsOf(body, input.length);
  }
}

/**
 * Whether fetch gave up at its timeout signal. By name: the DOMException it rejects with need not
 * be an instance of this realm's Error.
 */
function timedOut(error: unknown): boolean {
  return (error as { name?: unknown } | null)?.name === 'TimeoutError';
}

function vectorsOf(body: EmbeddingsResponse, count: number): Float32Array[] {
  const data = Array.isArray(body?.data) ? body.data : null;
  if (data === null || data.length !== count)
    throw new EmbeddingsError(
      'error',
      `embeddings provider sent ${data?.length ?? 0} of ${count} vectors`,
    );
  const vectors: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count);
  let dims: number | null = null;
  data.forEach((item, position) => {
    const index = typeof item?.index === 'number' ? item.index : position;
    const embedding = item?.embedding;
    if (
      !Number.isInteger(index) ||
      index < 0 ||
      index >= count ||
      vectors[index] !== undefined ||
      !Array.isArray(embedding) ||
      embedding.length === 0 ||
      (dims !== null && embedding.length !== dims) ||
      !embedding.every((x) => typeof x === 'number' && Number.isFinite(x))
    )
      throw new EmbeddingsError('error', 'embeddings provider sent a malformed vector');
    dims = embedding.length;
    vectors[index] = unit(embedding as number[]);
  });
  return vectors as Float32Array[];
}

export function unit(values: ArrayLike<number>): Float32Array {
  const vector = Float32Array.from(values);
  let norm = 0;
  for (const x of vector) norm += x * x;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

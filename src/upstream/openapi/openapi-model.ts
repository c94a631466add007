import { extname, join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { type Implementation } from '@modelcontextprotocol/client';
import { errorMessage } from '../../common/error-message';
import { boundMessage, refusalOf, refusedDefinition } from '../transport/message-bounds';
import { UpstreamFailure, type UpstreamFailureKind } from '../upstream-error';
import { OpenApiDocumentError, parseDocument, validateDocument } from './openapi-document';
import { type OpenApiSelection } from './openapi-selection';
import { type OperationPlan, operationTools } from './operation-tools';
import { DEFAULT_SCHEMA_BOUNDS } from './schema-refs';

/** A description read as tools. */
export interface OpenApiModel {
  info: Implementation;
  /** As tools/list answers: refused operations are their name and reason (see refusalOf). */
  tools: unknown[];
  plans: Map<string, OperationPlan>;
}

/** How many operations of one description may become tools. */
export const MAX_OPENAPI_TOOLS = 2_000;
/**
 * The heap a description may take to read as tools, in its own thread: a description that needs
 * more is refused, and the replica's own heap never holds it. GitHub's REST description (13 MB,
 * about 1,000 operations) reads in under 128 MB.
 */
export const MODEL_HEAP_MB = 256;
/** How long reading one description as tools may take (GitHub's: about 1 s). */
export const MODEL_BUILD_MS = 60_000;
/**
 * The most a model may come to as JSON: it is copied from the worker into the replica's heap and
 * kept there for the gateway's calls (2,000 operations each fanning out a schema of 1,200 nodes
 * took a replica's heap).
 */
export const MODEL_BYTES = 64 * 1024 * 1024;

/** A description's text read as tools: parsed, validated, each selected operation a tool. */
export async function buildModel(
  text: string,
  selection: OpenApiSelection,
  maxDepth: number,
): Promise<OpenApiModel> {
  const document = parseDocument(text);
  await validateDocument(document);
  const { tools, plans } = operationTools(document, selection, {
    ...DEFAULT_SCHEMA_BOUNDS,
    maxTools: MAX_OPENAPI_TOOLS,
  });
  const listed: unknown[] = tools.map((tool) =>
    'refused' in tool ? refusedDefinition(tool.name, tool.refused) : tool,
  );
  // Tool definitions are held to JSON_MAX_DEPTH as any upstream's are.
  const bounded = boundMessage({ jsonrpc: '2.0', id: 0, result: { tools: listed } }, maxDepth);
  if (bounded instanceof UpstreamFailure) throw bounded;
  const info = (typeof document.info === 'object' && document.info) || {};
  const { title, version } = info as { title?: unknown; version?: unknown };
  return {
    info: {
      name: typeof title === 'string' ? title.slice(0, 200) : 'openapi',
      version: typeof version === 'string' ? version.slice(0, 100) : '0',
    },
    tools: (bounded as unknown as { result: { tools: unknown[] } }).result.tools,
    plans,
  };
}

/** What one build asks of the worker thread. */
export interface ModelJob {
  text: string;
  selection: OpenApiSelection;
  maxDepth: number;
}

/**
 * What the worker thread answers: the model, or why there is none. A refused operation's entry is
 * marked by a symbol, which does not cross threads: its reason travels in `refusals`.
 */
export type ModelOutcome =
  | { model: OpenApiModel; refusals: { index: number; name: string; reason: string }[] }
  | { refused: string }
  | { failure: { kind: UpstreamFailureKind; message: string; status?: number } }
  | { error: string };

/** The worker's outcome of a build, as it crosses to the thread that asked. */
export async function modelOutcome(job: ModelJob): Promise<ModelOutcome> {
  try {
    const model = await buildModel(job.text, job.selection, job.maxDepth);
    if (JSON.stringify(model).length > MODEL_BYTES)
      return {
        refused: `its tools come to more than ${MODEL_BYTES / 1024 / 1024} MiB as JSON, past the limit`,
      };
    const refusals = model.tools.flatMap((tool, index) => {
      const reason = refusalOf(tool);
      return reason === null ? [] : [{ index, name: (tool as { name: string }).name, reason }];
    });
    return { model, refusals };
  } catch (error) {
    if (error instanceof OpenApiDocumentError) return { refused: error.message };
    if (error instanceof UpstreamFailure)
      return { failure: { kind: error.kind, message: error.message, status: error.status } };
    return { error: errorMessage(error) };
  }
}

/** From source (tests, scripts) the worker runs through ts-node, as its caller does. */
const WORKER_FILE = join(__dirname, `model-worker${extname(__filename)}`);
const WORKER_ARGV =
  extname(__filename) === '.ts' ? ['--require', 'ts-node/register/transpile-only'] : [];

/** Builds wait for the one before: each worker may take MODEL_HEAP_MB, and its model MODEL_BYTES. */
let building: Promise<unknown> = Promise.resolve();

/**
 * `buildModel` in a worker thread of its own, bounded in heap (MODEL_HEAP_MB) and time
 * (MODEL_BUILD_MS): validating a large description takes seconds of CPU and hundreds of MB,
 * which on the replica's own thread would stall every request it serves and could exhaust its
 * memory. A description past any bound (and its tools past MODEL_BYTES) is refused, saying which.
 */
export function buildModelApart(
  text: string,
  selection: OpenApiSelection,
  maxDepth: number,
  bounds?: { heapMb: number; timeoutMs: number },
): Promise<OpenApiModel> {
  const built = building.then(() => buildNow(text, selection, maxDepth, bounds));
  building = built.catch(() => undefined);
  return built;
}

function buildNow(
  text: string,
  selection: OpenApiSelection,
  maxDepth: number,
  { heapMb, timeoutMs }: { heapMb: number; timeoutMs: number } = {
    heapMb: MODEL_HEAP_MB,
    timeoutMs: MODEL_BUILD_MS,
  },
): Promise<OpenApiModel> {
  return new Promise((resolve, reject) => {
    const job: ModelJob = { text, selection, maxDepth };
    const worker = new Worker(WORKER_FILE, {
      workerData: job,
      execArgv: WORKER_ARGV,
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    });
    let settled = false;
    const settle = (outcome: ModelOutcome | Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void worker.terminate();
      if (outcome instanceof Error) reject(outcome);
      else if ('model' in outcome) {
        const { tools } = outcome.model;
        for (const { index, name, reason } of outcome.refusals)
          tools[index] = refusedDefinition(name, reason);
        resolve(outcome.model);
      } else if ('refused' in outcome) reject(new OpenApiDocumentError(outcome.refused));
      else if ('failure' in outcome) {
        const { kind, message, status } = outcome.failure;
        reject(new UpstreamFailure(kind, message, status));
      } else reject(new Error(`Reading the OpenAPI description failed: ${outcome.error}`));
    };
    const timer = setTimeout(
      () =>
        settle(
          new OpenApiDocumentError(
            `reading the description as tools took longer than ${timeoutMs / 1000} s, past the limit`,
          ),
        ),
      timeoutMs,
    );
    worker.once('message', (outcome: ModelOutcome) => settle(outcome));
    worker.once('error', (error: Error & { code?: string }) =>
      settle(
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? new OpenApiDocumentError(
              `reading the description as tools needs more than ${heapMb} MB, past the limit`,
            )
          : error,
      ),
    );
    worker.once('exit', (code) =>
      settle(new Error(`The OpenAPI worker ended (exit code ${code}) without an answer`)),
    );
  });
}

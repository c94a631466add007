import { WordVectors } from '../src/embeddings/word-vectors';
import { HybridIndex } from '../src/mcp/search/ranking/hybrid-index';
import { TimeSlicer } from '../src/common/time-slicer';
import { semanticText } from '../src/mcp/search/ranking/tool-text';
import { evaluationTools, recordedCatalogues } from './catalogues/evaluation-set';

// Resident memory the semantic part adds: the word-vector table, and a vector per tool for 10,000
// tools, held as the index holds them. Run in a process of its own, with a collected heap:
//   node --expose-gc -r ts-node/register/transpile-only bench/tool-search-memory.ts

export interface SemanticMemory {
  tools: number;
  words: number;
  /** Bytes of the table's arrays. */
  tableBytes: number;
  /** Resident set growth, MiB, from before the table loaded to after 10,000 tools were indexed. */
  rssMiB: number;
  heapMiB: number;
  externalMiB: number;
}

function collect(): NodeJS.MemoryUsage {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  gc();
  gc();
  return process.memoryUsage();
}

async function main(): Promise<void> {
  const tools = evaluationTools(recordedCatalogues(), 10_000);
  const texts = tools.map((tool) => semanticText(tool.definition));
  const before = collect();
  const vectors = await WordVectors.load();
  const index = await HybridIndex.build(
    texts.map((text) => ({
      counts: { terms: [], counts: new Float32Array(), length: 0 },
      vector: vectors.embed(text),
    })),
    null,
    new TimeSlicer(Infinity),
  );
  const after = collect();
  const mib = (bytes: number) => bytes / 2 ** 20;
  const result: SemanticMemory = {
    tools: index.size,
    words: vectors.words,
    tableBytes: vectors.bytes,
    rssMiB: mib(after.rss - before.rss),
    heapMiB: mib(after.heapUsed - before.heapUsed),
    externalMiB: mib(after.external + after.arrayBuffers - before.external - before.arrayBuffers),
  };
  console.log(JSON.stringify(result));
}

if (require.main === module) void main();

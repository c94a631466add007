import { createHash } from 'node:crypto';
import { type Tool as McpTool } from '@modelcontextprotocol/server';
import { type WordVectors } from '../../embeddings/word-vectors';
import { type TermCounts, termCounts } from './ranking/bm25';
import { type Action, toolAction } from './ranking/intent';
import { nameTerms } from './ranking/name-coverage';
import { lexicalFields, providerText, semanticText } from './ranking/tool-text';

/** What ranking needs of one tool, worked out once per tool content. */
export interface ToolAnalysis {
  /** sha256 of the definition as listed. */
  contentHash: string;
  counts: TermCounts;
  /** From the embedded word vectors; null when none of its words is known. */
  vector: Float32Array | null;
  /** What the tool does, from the first verb of its upstream name. */
  action: Action | null;
  /** The distinct terms of its upstream name. */
  name: string[];
  /** What the embeddings provider embeds, and its sha256, which keys the provider's vector. */
  providerText: string;
  providerHash: string;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * Analyses by tool id and content, shared by every catalogue of the process: a catalogue change
 * re-analyses only the tools that changed. Two generations bound it: when the current one fills,
 * it becomes the previous one and entries no catalogue asked for since are dropped.
 */
export class ToolAnalysisCache {
  private current = new Map<string, ToolAnalysis>();
  private previous = new Map<string, ToolAnalysis>();
  misses = 0;

  constructor(
    private readonly vectors: WordVectors | null,
    private readonly capacity = 50_000,
  ) {}

  /**
   * `originalName` is the tool's name upstream: the verb is read from it rather than from the
   * virtual name, whose gateway slug may hold a verb of its own ("brave-search").
   */
  analyse(id: string, definition: McpTool, originalName = definition.name): ToolAnalysis {
    const contentHash = sha256(JSON.stringify(definition));
    const key = `${id}\u0000${contentHash}`;
    let analysis = this.current.get(key);
    if (analysis) return analysis;
    analysis = this.previous.get(key);
    if (!analysis) {
      this.misses++;
      const text = providerText(definition);
      analysis = {
        contentHash,
        counts: termCounts(lexicalFields(definition)),
        vector: this.vectors?.embed(semanticText(definition)) ?? null,
        action: toolAction(originalName),
        name: nameTerms(originalName),
        providerText: text,
        providerHash: sha256(text),
      };
    }
    if (this.current.size >= this.capacity) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, analysis);
    return analysis;
  }
}

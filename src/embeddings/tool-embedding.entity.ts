import { Column, CreateDateColumn, Entity, PrimaryColumn } from 'typeorm';

/**
 * A tool's vector from the embeddings provider, keyed by the model and the hash of the text it
 * embeds, so that replicas and restarts reuse it and an unchanged tool is never embedded twice.
 *
 * The `embedding` column is pgvector's `vector` where the extension is available, else `real[]`;
 * the migration chooses. The entity therefore does not map it (ToolVectorStore reads and writes it
 * as text), and is left out of schema synchronisation, which cannot express the choice.
 */
@Entity({ name: 'tool_embedding', synchronize: false })
export class ToolEmbedding {
  @PrimaryColumn({ type: 'varchar', length: 200 })
  model!: string;

  /** sha256 hex of the embedded text. */
  @PrimaryColumn({ name: 'content_hash', type: 'char', length: 64 })
  contentHash!: string;

  @Column({ type: 'integer' })
  dimensions!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

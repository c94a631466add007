import { Module } from '@nestjs/common';
import { EmbeddingsMetrics } from './embeddings-metrics';
import { LocalEmbeddings } from './local-embeddings.service';
import { ProviderEmbeddings } from './provider-embeddings.service';
import { ToolVectorStore } from './tool-vector.store';

/** Text embeddings for tool search: the embedded word vectors and the optional provider. */
@Module({
  providers: [LocalEmbeddings, ProviderEmbeddings, ToolVectorStore, EmbeddingsMetrics],
  exports: [LocalEmbeddings, ProviderEmbeddings],
})
export class EmbeddingsModule {}

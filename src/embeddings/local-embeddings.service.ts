import { Injectable, Logger } from '@nestjs/common';
import { WordVectors } from './word-vectors';

/**
 * The embedded word vectors, loaded once, on first use. Without them search still works, on BM25
 * and the provider; that is logged, not fatal.
 */
@Injectable()
export class LocalEmbeddings {
  private readonly logger = new Logger(LocalEmbeddings.name);
  private loading?: Promise<WordVectors | null>;

  load(): Promise<WordVectors | null> {
    this.loading ??= WordVectors.load().catch((error: unknown) => {
      this.logger.error(
        `Word vectors could not be loaded; tool search ranks without them: ${String(error)}`,
      );
      return null;
    });
    return this.loading;
  }
}

import {
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { readFile } from 'node:fs/promises';
import { DataSource } from 'typeorm';
import { whenMigrated } from '../auth/when-migrated';
import { ConfigFileSettings } from '../config/slices/config-file.settings';
import { parseConfigText } from './config-document';
import { ConfigDocumentErrorCode, ConfigDocumentException } from './config-document.exception';
import { utf8Text } from '../common/untrusted-text';
import { ConfigService } from './config.service';

/**
 * CONFIG_FILE (typically a mounted ConfigMap) is applied at start-up, before the app listens, and
 * only when it (or a credential it names) changed since the last apply. A file that does not
 * apply stops the start: a replica serving a configuration other than the one deployed would be
 * worse than one that does not become ready.
 */
@Injectable()
export class ConfigFileStartup implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ConfigFileStartup.name);
  private cancel?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: ConfigFileSettings,
    private readonly service: ConfigService,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const file = this.config.configFile;
    if (file === null) return;
    this.cancel = await whenMigrated(this.dataSource, this.logger, () => this.applyFile(file));
  }

  onModuleDestroy(): void {
    this.cancel?.();
  }

  private async applyFile(file: string): Promise<void> {
    const bytes = await readFile(file);
    let text: string;
    try {
      text = utf8Text(bytes);
    } catch {
      throw new ConfigDocumentException(
        ConfigDocumentErrorCode.Invalid,
        `CONFIG_FILE ${file} is not UTF-8 text.`,
      );
    }
    const document = parseConfigText(text);
    const result = await this.service.applyAtStartup(document, text, this.config.configPrune);
    if (result === null) {
      this.logger.log(`CONFIG_FILE ${file} is applied already; nothing to do.`);
      return;
    }
    this.logger.log(`Applied CONFIG_FILE ${file}:\n${result.plan}`);
    for (const warning of result.warnings) this.logger.warn(warning);
  }
}

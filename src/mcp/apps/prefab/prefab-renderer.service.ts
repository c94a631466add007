import { readFileSync } from 'node:fs';
import { Injectable, type OnModuleInit } from '@nestjs/common';
import { scriptJson } from '../call-rewriter';
import { CONFIG_PLACEHOLDER, prefabRendererFile } from './prefab-renderer.paths';

/** The settings a served renderer page reads (see renderer/prefab-renderer.mts). */
export interface PrefabPageConfig {
  /** The tool's hashed backend name when apps may call it, for the page's refresh button. */
  tool: string | null;
  title: string;
}

/** Portico's own UI for tools without one: the page built by build-prefab-renderer.ts. */
@Injectable()
export class PrefabRenderer implements OnModuleInit {
  private template = '';

  /** A missing page is a broken build; better to say so at start-up than on the first read. */
  onModuleInit(): void {
    const file = prefabRendererFile();
    try {
      this.template = readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(
        `The Prefab renderer page ${file} is missing; \`npm run build\` builds it (${String(error)})`,
      );
    }
  }

  html(config: PrefabPageConfig): string {
    return this.template.replace(
      CONFIG_PLACEHOLDER,
      () =>
        `<script type="application/json" id="portico-prefab-config">${scriptJson(config)}</script>`,
    );
  }
}

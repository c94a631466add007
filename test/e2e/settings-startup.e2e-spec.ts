import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { type PorticoProcess, startPorticoProcess } from '../support/portico-process';
import { tempDataDir } from '../support/temp-dir';
import { waitFor } from '../support/wait-for';
import { describeEmbedded } from '../support/describe-on-postgres';

describeEmbedded('settings at start-up', () => {
  let portico: PorticoProcess;

  afterAll(async () => {
    await portico?.stop();
  });

  it('warns once for each old variable still read, naming the document key, and for one the document overrides', async () => {
    const file = join(tempDataDir(), 'portico.yaml');
    writeFileSync(
      file,
      stringify({ apiVersion: 'portico/v1', settings: { upstream: { timeoutMs: 5000 } } }),
    );
    portico = await startPorticoProcess({
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
      CONFIG_FILE: file,
      MCP_PAGE_SIZE: '250',
      UPSTREAM_TIMEOUT_MS: '1000',
    });
    const warnings = await waitFor(() => {
      const lines = portico
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as { msg?: string })
        .map((line) => line.msg ?? '')
        .filter((msg) => /is deprecated|is ignored/.test(msg));
      return lines.length >= 2 ? lines : undefined;
    }, 'the deprecation warnings');
    expect(warnings).toContain(
      'MCP_PAGE_SIZE is deprecated and is read for one more release only: set settings.mcp.pageSize in the configuration document (CONFIG_FILE) instead.',
    );
    expect(warnings).toContain(
      'UPSTREAM_TIMEOUT_MS is ignored: the configuration document sets settings.upstream.timeoutMs.',
    );
    expect(warnings.filter((msg) => msg.startsWith('MCP_PAGE_SIZE '))).toHaveLength(1);
  });
});

import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { entryArgs } from '../support/compiled-sources';
import { tempDataDir } from '../support/temp-dir';
import { describeEmbedded } from '../support/describe-on-postgres';

const root = join(__dirname, '..', '..');

function start(env: Record<string, string>) {
  return spawnSync(process.execPath, entryArgs('src/main.ts'), {
    cwd: root,
    env: { PATH: process.env.PATH, DATA_DIR: tempDataDir(), ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
}

describeEmbedded('start-up configuration', () => {
  it.each([
    ['PORT', 'eighty'],
    ['GATEWAY_TOOL_NAME_SEPARATOR', 'a b'],
  ])('stops with a one-line message naming %s', (name, value) => {
    const result = start({ [name]: value });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(new RegExp(`^Invalid configuration: ${name} `)),
    ]);
  });
});

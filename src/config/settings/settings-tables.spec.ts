import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../common/project-root';
import { DEPLOYMENT_SETTINGS } from './deployment-settings';
import { TABLE_MARKERS, withSettingsTables } from './settings-tables';
import { TUNING_KNOBS } from './tuning-knobs';

/** A table as its cells, without the padding prettier adds. */
function cells(readme: string, which: keyof typeof TABLE_MARKERS): string[] {
  const [open, close] = TABLE_MARKERS[which];
  return readme
    .slice(readme.indexOf(open) + open.length, readme.indexOf(close))
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.replace(/\s*\|\s*/g, '|').replace(/\|-+(?=\|)/g, '|-'));
}

describe('the settings tables of the README', () => {
  const readme = readFileSync(join(projectRoot(), 'README.md'), 'utf8');

  it('are the catalogue, as written by npm run config:schema', () => {
    // When this fails, run `npm run config:schema` and commit README.md.
    const generated = withSettingsTables(readme);
    for (const which of ['deployment', 'knobs'] as const)
      expect(cells(readme, which)).toEqual(cells(generated, which));
  });

  it('name every setting once, in one table or the other', () => {
    const names = [...DEPLOYMENT_SETTINGS, ...TUNING_KNOBS].flatMap((setting) => setting.env ?? []);
    expect(new Set(names).size).toBe(names.length);
    const keys = TUNING_KNOBS.map((knob) => knob.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(cells(readme, 'deployment')).toHaveLength(DEPLOYMENT_SETTINGS.length + 2);
    expect(cells(readme, 'knobs')).toHaveLength(TUNING_KNOBS.length + 2);
  });
});

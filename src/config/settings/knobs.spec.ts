import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { tempDataDir } from '../../../test/support/temp-dir';
import { ConfigError, loadConfig } from '../load-config';
import { type Settings } from '../settings';
import { type KnobValue, type TuningKnob } from './setting';
import { TUNING_KNOBS } from './tuning-knobs';

/** A valid value of the knob that is not its default. */
function otherValue(knob: TuningKnob): KnobValue {
  switch (knob.type) {
    case 'integer':
      return knob.default + 1 <= knob.max ? knob.default + 1 : knob.default - 1;
    case 'boolean':
      return !knob.default;
    case 'enum':
      return knob.values.find((value) => value !== knob.default)!;
    case 'names':
      return ['github-create_issue', 'jira-find'];
  }
}

function envText(value: KnobValue): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

function documentSetting(knob: TuningKnob, value: KnobValue): Record<string, unknown> {
  const [group = '', name = ''] = knob.key.split('.');
  return { [group]: { [name]: value } };
}

/** The knobs that were set by an environment variable before, with it. */
const OLD_VARIABLES = TUNING_KNOBS.flatMap((knob) =>
  knob.env === undefined ? [] : [[knob.env, knob] as const],
);

/** The configuration without what says where it came from. */
function effective(config: Settings): Partial<Settings> {
  const { configFile: _file, settingWarnings: _warnings, ...rest } = config;
  return rest;
}

describe('tuning knobs', () => {
  const dataDir = tempDataDir();
  // The identity provider and the embeddings endpoint are on, so that their knobs show.
  const base = {
    DATA_DIR: dataDir,
    OIDC_ISSUER: 'https://idp.example.com',
    EMBEDDINGS_URL: 'http://embeddings.example.com/v1',
    EMBEDDINGS_MODEL: 'small',
  };
  let files = 0;
  const documentFile = (settings: unknown): string => {
    const file = join(dataDir, `portico-${files++}.yaml`);
    writeFileSync(file, stringify({ apiVersion: 'portico/v1', settings }));
    return file;
  };
  const defaults = effective(loadConfig(base));

  it.each(TUNING_KNOBS.map((knob) => [knob.key, knob] as const))(
    '%s: the document sets it, without a warning',
    (_key, knob) => {
      const fromDocument = loadConfig({
        ...base,
        CONFIG_FILE: documentFile(documentSetting(knob, otherValue(knob))),
      });
      expect(effective(fromDocument)).not.toEqual(defaults);
      expect(fromDocument.settingWarnings).toEqual([]);
    },
  );

  it.each(OLD_VARIABLES.map(([variable, knob]) => [variable, knob] as const))(
    '%s, an old variable, is still honoured with a warning',
    (variable, knob) => {
      const value = otherValue(knob);
      const fromDocument = loadConfig({
        ...base,
        CONFIG_FILE: documentFile(documentSetting(knob, value)),
      });
      const fromEnv = loadConfig({ ...base, [variable]: envText(value) });
      expect(effective(fromEnv)).toEqual(effective(fromDocument));
      expect(fromEnv.settingWarnings).toEqual([
        `${variable} is deprecated and is read for one more release only: set settings.${knob.key} in the configuration document (CONFIG_FILE) instead.`,
      ]);
    },
  );

  it('reads no variable for a knob added since knobs moved into the document', () => {
    const added = TUNING_KNOBS.filter((knob) => knob.env === undefined);
    expect(added.map((knob) => knob.key)).toContain('sync.oauthRefreshSeconds');
    const config = loadConfig({ ...base, OAUTH_REFRESH_SWEEP_SECONDS: '2' });
    expect(effective(config)).toEqual(defaults);
    expect(config.settingWarnings).toEqual([]);
  });

  it('a document that sets every knob with an old variable gives what each variable gave', () => {
    const settings: Record<string, Record<string, unknown>> = {};
    const env: Record<string, string> = { ...base };
    for (const [variable, knob] of OLD_VARIABLES) {
      const [group = '', name = ''] = knob.key.split('.');
      settings[group] = { ...settings[group], [name]: otherValue(knob) };
      env[variable] = envText(otherValue(knob));
    }
    const fromDocument = loadConfig({ ...base, CONFIG_FILE: documentFile(settings) });
    const fromEnv = loadConfig(env);
    expect(effective(fromDocument)).toEqual(effective(fromEnv));
    expect(fromEnv.settingWarnings).toHaveLength(OLD_VARIABLES.length);
    expect(fromDocument.settingWarnings).toEqual([]);
  });

  it('lets the document win over an old variable, and says the variable is ignored', () => {
    const config = loadConfig({
      ...base,
      UPSTREAM_TIMEOUT_MS: '1000',
      CONFIG_FILE: documentFile({ upstream: { timeoutMs: 2000 } }),
    });
    expect(config.upstreamTimeoutMs).toBe(2000);
    expect(config.settingWarnings).toEqual([
      'UPSTREAM_TIMEOUT_MS is ignored: the configuration document sets settings.upstream.timeoutMs.',
    ]);
  });

  it('refuses a CONFIG_FILE that is not UTF-8, rather than reading replaced characters', () => {
    const file = join(dataDir, 'latin1.yaml');
    writeFileSync(
      file,
      Buffer.from('apiVersion: portico/v1\nteams:\n  - name: caf\xe9\n', 'latin1'),
    );
    expect(() => loadConfig({ ...base, CONFIG_FILE: file })).toThrow(/CONFIG_FILE must be YAML/);
  });

  it('keeps the defaults when neither the document nor the environment sets a knob', () => {
    const config = loadConfig({ ...base, CONFIG_FILE: documentFile(undefined) });
    expect(effective(config)).toEqual(defaults);
    expect(config.upstreamTimeoutMs).toBe(30_000);
    expect(config.upstreamResilience.maxConcurrent).toBe(64);
  });

  it('refuses a knob out of bounds, of the wrong type or unknown, naming its key', () => {
    const refused = (settings: unknown) => () =>
      loadConfig({ ...base, CONFIG_FILE: documentFile(settings) });
    expect(refused({ upstream: { timeoutMs: 50 } })).toThrow(
      /CONFIG_FILE settings\.upstream\.timeoutMs: /,
    );
    expect(refused({ mcp: { toolSearch: 'yes' } })).toThrow(/settings\.mcp\.toolSearch/);
    expect(refused({ upstream: { timeoutMS: 5000 } })).toThrow(ConfigError);
    expect(refused({ nowhere: {} })).toThrow(ConfigError);
    expect(refused({ audit: { arguments: 'all' } })).toThrow(/settings\.audit\.arguments/);
  });

  it('still refuses a bad old variable as before', () => {
    expect(() => loadConfig({ ...base, UPSTREAM_TIMEOUT_MS: 'soon' })).toThrow(
      "Invalid configuration: UPSTREAM_TIMEOUT_MS must be an integer from 100 to 3600000 (got 'soon')",
    );
  });

  it('stops the start when CONFIG_FILE cannot be read', () => {
    expect(() => loadConfig({ ...base, CONFIG_FILE: join(dataDir, 'missing.yaml') })).toThrow(
      /CONFIG_FILE must name a readable file/,
    );
  });
});

import { envMapProblem } from './stdio-env';

describe('envMapProblem', () => {
  it.each([
    'PATH',
    'path',
    'NODE_OPTIONS',
    'node_options',
    'NODE_PATH',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'DYLD_INSERT_LIBRARIES',
    'npm_config_registry',
    'NPM_CONFIG_SCRIPT_SHELL',
    'PYTHONSTARTUP',
    'PYTHONPATH',
    'UV_INDEX_URL',
    'PIP_INDEX_URL',
    'PERL5OPT',
    'RUBYOPT',
    'JAVA_TOOL_OPTIONS',
    'DOTNET_STARTUP_HOOKS',
    'DOCKER_HOST',
    'GIT_SSH_COMMAND',
    'BASH_ENV',
    'BASH_FUNC_npx%%'.replace('%%', ''),
    'HOME',
  ])('refuses %s, which chooses the code the process runs', (name) => {
    expect(envMapProblem({ [name]: 'x' })).toContain(`may not set '${name}'`);
  });

  it.each(['NODE_ENV', 'PYTHONUNBUFFERED', 'LOG_LEVEL', 'API_KEY', 'PATHWAY', 'MY_PATH'])(
    'takes %s',
    (name) => {
      expect(envMapProblem({ [name]: 'x' })).toBeNull();
    },
  );
});

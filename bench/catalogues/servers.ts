/** One real MCP server package whose tools/list the tool-search evaluation ranks over. */
export interface RecordedServer {
  /** The gateway slug its tools are named under. */
  slug: string;
  package: string;
  version: string;
  /** The package's bin to run. */
  bin: string;
  args?: string[];
  /** Dummy credentials some servers insist on before they list tools. */
  env?: Record<string, string>;
  /** Files some servers read at start-up (dummy OAuth client keys), relative to a scratch HOME. */
  files?: Record<string, string>;
}

const GOOGLE_CLIENT = JSON.stringify({
  installed: {
    client_id: 'recorder.apps.googleusercontent.com',
    client_secret: 'recorder',
    redirect_uris: ['http://localhost'],
  },
});

const DUMMY_TOKEN = JSON.stringify({
  access_token: 'recorder',
  refresh_token: 'recorder',
  token_type: 'Bearer',
  expiry_date: 9_999_999_999_999,
});

/** Chosen for breadth: the domains teams put behind one gateway, with overlaps between them. */
export const SERVERS: RecordedServer[] = [
  {
    slug: 'filesystem',
    package: '@modelcontextprotocol/server-filesystem',
    version: '2026.8.31',
    bin: 'mcp-server-filesystem',
    args: ['.'],
  },
  {
    slug: 'github',
    package: '@modelcontextprotocol/server-github',
    version: '2025.4.8',
    bin: 'mcp-server-github',
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'recorder' },
  },
  {
    slug: 'gitlab',
    package: '@zereight/mcp-gitlab',
    version: '2.1.64',
    bin: 'mcp-gitlab',
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'recorder', GITLAB_API_URL: 'http://127.0.0.1:9/api/v4' },
  },
  {
    slug: 'slack',
    package: '@modelcontextprotocol/server-slack',
    version: '2025.4.25',
    bin: 'mcp-server-slack',
    env: { SLACK_BOT_TOKEN: 'xoxb-recorder', SLACK_TEAM_ID: 'T0000000' },
  },
  {
    slug: 'postgres',
    package: '@modelcontextprotocol/server-postgres',
    version: '0.6.2',
    bin: 'mcp-server-postgres',
    args: ['postgres://127.0.0.1:9/recorder'],
  },
  {
    slug: 'mongodb',
    package: 'mongodb-mcp-server',
    version: '3.0.4',
    bin: 'mongodb-mcp-server',
    env: { MDB_MCP_TELEMETRY: 'disabled', DO_NOT_TRACK: '1' },
  },
  {
    slug: 'memory',
    package: '@modelcontextprotocol/server-memory',
    version: '2026.8.31',
    bin: 'mcp-server-memory',
  },
  {
    slug: 'everything',
    package: '@modelcontextprotocol/server-everything',
    version: '2026.8.31',
    bin: 'mcp-server-everything',
  },
  {
    slug: 'puppeteer',
    package: '@modelcontextprotocol/server-puppeteer',
    version: '2025.5.12',
    bin: 'mcp-server-puppeteer',
  },
  {
    slug: 'playwright',
    package: '@playwright/mcp',
    version: '0.0.83',
    bin: 'playwright-mcp',
  },
  {
    slug: 'chrome-devtools',
    package: 'chrome-devtools-mcp',
    version: '1.11.0',
    bin: 'chrome-devtools-mcp',
  },
  {
    slug: 'google-maps',
    package: '@modelcontextprotocol/server-google-maps',
    version: '0.6.2',
    bin: 'mcp-server-google-maps',
    env: { GOOGLE_MAPS_API_KEY: 'recorder' },
  },
  {
    slug: 'brave-search',
    package: '@modelcontextprotocol/server-brave-search',
    version: '0.6.2',
    bin: 'mcp-server-brave-search',
    env: { BRAVE_API_KEY: 'recorder' },
  },
  {
    slug: 'tavily',
    package: 'tavily-mcp',
    version: '0.2.22',
    bin: 'tavily-mcp',
    env: { TAVILY_API_KEY: 'tvly-recorder' },
  },
  {
    slug: 'exa',
    package: 'exa-mcp-server',
    version: '3.4.1',
    bin: 'exa-mcp-server',
    env: { EXA_API_KEY: 'recorder' },
  },
  {
    slug: 'firecrawl',
    package: 'firecrawl-mcp',
    version: '3.22.2',
    bin: 'firecrawl-mcp',
    env: { FIRECRAWL_API_KEY: 'fc-recorder' },
  },
  {
    slug: 'context7',
    package: '@upstash/context7-mcp',
    version: '4.1.1',
    bin: 'context7-mcp',
  },
  {
    slug: 'notion',
    package: '@notionhq/notion-mcp-server',
    version: '2.5.2',
    bin: 'notion-mcp-server',
    env: { NOTION_TOKEN: 'ntn_recorder' },
  },
  {
    slug: 'shortcut',
    package: '@shortcut/mcp',
    version: '0.25.0',
    bin: 'mcp-server-shortcut',
    env: { SHORTCUT_API_TOKEN: 'recorder' },
  },
  {
    slug: 'sentry',
    package: '@sentry/mcp-server',
    version: '0.36.0',
    bin: 'sentry-mcp',
    args: ['--access-token=recorder'],
  },
  {
    slug: 'datadog',
    package: '@winor30/mcp-server-datadog',
    version: '1.8.0',
    bin: 'mcp-server-datadog',
    env: { DATADOG_API_KEY: 'recorder', DATADOG_APP_KEY: 'recorder' },
  },
  {
    slug: 'circleci',
    package: '@circleci/mcp-server-circleci',
    version: '0.20.0',
    bin: 'mcp-server-circleci',
    env: { CIRCLECI_TOKEN: 'recorder' },
  },
  {
    slug: 'kubernetes',
    package: 'mcp-server-kubernetes',
    version: '4.1.7',
    bin: 'mcp-server-kubernetes',
  },
  {
    slug: 'launchdarkly',
    package: '@launchdarkly/mcp-server',
    version: '0.6.2',
    bin: 'mcp',
    args: ['start', '--api-key', 'recorder'],
  },
  {
    slug: 'gmail',
    package: '@gongrzhe/server-gmail-autoauth-mcp',
    version: '1.1.11',
    bin: 'gmail-mcp',
    files: {
      '.gmail-mcp/gcp-oauth.keys.json': GOOGLE_CLIENT,
      '.gmail-mcp/credentials.json': DUMMY_TOKEN,
    },
  },
  {
    slug: 'google-calendar',
    package: '@cocal/google-calendar-mcp',
    version: '2.6.3',
    bin: 'google-calendar-mcp',
    env: { GOOGLE_OAUTH_CREDENTIALS: 'gcp-oauth.keys.json' },
    files: { 'gcp-oauth.keys.json': GOOGLE_CLIENT },
  },
  {
    slug: 'hubspot',
    package: '@hubspot/mcp-server',
    version: '0.4.0',
    bin: 'mcp-hubspot',
    env: { PRIVATE_APP_ACCESS_TOKEN: 'recorder' },
  },
  {
    slug: 'desktop-commander',
    package: '@wonderwhy-er/desktop-commander',
    version: '0.2.52',
    bin: 'desktop-commander',
  },
  {
    slug: 'charts',
    package: '@antv/mcp-server-chart',
    version: '0.9.10',
    bin: 'mcp-server-chart',
  },
];

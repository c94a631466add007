import { isURL } from 'class-validator';
import { z } from 'zod';
import { headerMapProblem } from '../../gateways/dto/gateway-auth.dto';
import { UPSTREAM_URL_OPTIONS, URL_MAX_LENGTH } from '../../gateways/dto/gateway-create.dto';
import { Gateway, GATEWAY_TRANSPORTS } from '../../gateways/gateway.entity';
import {
  type GatewayCredentials,
  OAUTH_MODES,
  TOKEN_CLIENT_AUTHS,
  TOKEN_EXCHANGE_DIALECTS,
  openCredentials,
  sealCredentials,
} from '../../upstream/upstream-credentials';
import { sealStdioEnv, stdioLaunchOf } from '../../upstream/transport/stdio/stdio-process';
import { gatewaySlug } from '../../gateways/gateway-slug';
import { envMapProblem } from '../../gateways/dto/stdio-env';
import { MAX_STDIO_ARG, MAX_STDIO_ARGS } from '../../gateways/dto/gateway-create.dto';
import { FINDING_SEVERITIES, PINNING_MODES } from '../../pin-state/definition-pin';
import { ERA_PINS } from '../../upstream/eras/protocol-era';
import {
  gatewaySettingsSchema,
  normalGatewaySettings,
} from '../../config/settings/gateway-settings';
import { Team } from '../../teams/team.entity';
import { type FieldChange, SECRET_SHOWN, scalarChanges } from '../config-change';
import { ConfigDocumentErrorCode, ConfigDocumentException } from '../config-document.exception';
import { resolveSecret, secretRefSchema } from '../secret-ref';
import {
  type ApplyContext,
  defineSection,
  teamIdOf,
  teamNameOf,
  warnCascades,
} from './config-section';
import { applyPins, exportedPins, gatewayPinsSchema } from './gateway-pins';
import {
  exportedOpenApi,
  gatewayOpenApiSchema,
  openApiColumnsOf,
  openApiShown,
} from './gateway-openapi';

const gatewayAuth = z.discriminatedUnion('type', [
  z.object({ type: z.literal('none') }).strict(),
  z
    .object({
      type: z.literal('bearer'),
      token: secretRefSchema.describe('Where the bearer token is; never the token itself.'),
    })
    .strict(),
  z
    .object({
      type: z.literal('headers'),
      headers: z
        .record(z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,128}$/), secretRefSchema)
        .describe('Header name → where its value is.'),
    })
    .strict(),
  z
    .object({
      type: z.literal('oauth'),
      mode: z
        .enum(OAUTH_MODES)
        .describe(
          'shared: one connected account; per-user: each caller their own; client-credentials.',
        ),
      clientId: z.string().min(1).max(512).optional().describe('A client registered beforehand.'),
      clientSecret: secretRefSchema.optional().describe('Where that client secret is.'),
      scope: z.string().max(1024).optional().describe('Scopes to ask for, space-separated.'),
    })
    .strict(),
  z
    .object({
      type: z.literal('token-exchange'),
      tokenUrl: z
        .string()
        .max(URL_MAX_LENGTH)
        .regex(/^https?:\/\//i)
        .refine((url) => isURL(url, UPSTREAM_URL_OPTIONS), 'must be an absolute http(s) URL')
        .describe("The token service's token endpoint, under the same rules as url."),
      dialect: z
        .enum(TOKEN_EXCHANGE_DIALECTS)
        .default('rfc8693')
        .describe("rfc8693: RFC 8693 token exchange; entra-obo: Entra ID's on-behalf-of."),
      clientId: z.string().min(1).max(512).describe("Portico's client at the token service."),
      clientSecret: secretRefSchema.optional().describe('Where that client secret is.'),
      clientAuth: z.enum(TOKEN_CLIENT_AUTHS).default('client_secret_basic'),
      audience: z.string().min(1).max(1024).optional().describe('The audience asked for.'),
      resource: z.string().min(1).max(URL_MAX_LENGTH).optional().describe('RFC 8707 resource.'),
      scope: z.string().max(1024).optional().describe('Scopes to ask for, space-separated.'),
      actor: z
        .boolean()
        .default(false)
        .describe("Send Portico's own token (client credentials) as the actor_token."),
    })
    .strict(),
]);

const gatewayItem = z
  .object({
    name: z
      .string()
      .min(1)
      .max(200)
      .describe('Unique name; its slug prefixes every tool name of the gateway.'),
    url: z
      .string()
      .max(URL_MAX_LENGTH)
      .optional()
      .describe('The upstream MCP endpoint, http(s); required unless the transport is stdio.'),
    transport: z.enum(GATEWAY_TRANSPORTS).default('streamable-http'),
    command: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe('stdio: the command Portico launches (on STDIO_COMMANDS); never run by a shell.'),
    args: z
      .array(z.string().max(MAX_STDIO_ARG))
      .max(MAX_STDIO_ARGS)
      .optional()
      .describe('stdio: its arguments.'),
    cwd: z.string().max(4096).optional().describe('stdio: its working directory.'),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/), secretRefSchema)
      .optional()
      .describe('stdio: environment variable → where its value is.'),
    team: z
      .string()
      .nullable()
      .default(null)
      .describe('Name of the owning team; null or absent: global.'),
    enabled: z.boolean().default(true),
    auth: gatewayAuth
      .default({ type: 'none' })
      .describe('How Portico signs in to the upstream; credentials by reference only.'),
    pinning: z
      .enum(PINNING_MODES)
      .default('off')
      .describe(
        'off: changes are served at once (pinned entries excepted); first-sight: definitions are pinned as first synced, and a change waits for approval; review: new entries wait too.',
      ),
    quarantineOnFinding: z
      .enum(FINDING_SEVERITIES)
      .nullable()
      .default(null)
      .describe('The least severe scanner finding that holds a definition back; null: none.'),
    eraPin: z
      .enum(ERA_PINS)
      .default('auto')
      .describe(
        "The era of MCP spoken with the upstream: auto probes it; '2025' or '2026-07-28' skips the probe.",
      ),
    openapi: gatewayOpenApiSchema.optional(),
    pins: gatewayPinsSchema.optional(),
    settings: gatewaySettingsSchema.optional(),
  })
  .strict();

type GatewayItem = z.output<typeof gatewayItem>;

/** Upstream MCP servers by name. Their tools come from syncs, which run after the commit. */
export const gatewaysSection = defineSection({
  key: 'gateways',
  description: 'Upstream MCP servers, by name.',
  item: gatewayItem,

  async export({ em, encryptionKey }) {
    const gateways = await em.getRepository(Gateway).find({ order: { name: 'ASC' } });
    const teams = new Map((await em.getRepository(Team).find()).map((t) => [t.id, t.name]));
    const pins = await exportedPins(em);
    return gateways.map((gateway) => ({
      name: gateway.name,
      ...(gateway.url === null ? {} : { url: gateway.url }),
      ...(gateway.transport === 'streamable-http' ? {} : { transport: gateway.transport }),
      ...stdioPlaceholder(gateway),
      ...exportedOpenApi(gateway),
      ...(gateway.teamId === null ? {} : { team: teams.get(gateway.teamId) ?? null }),
      ...(gateway.enabled ? {} : { enabled: false }),
      ...authPlaceholder(gateway, encryptionKey),
      ...(gateway.pinning === 'off' ? {} : { pinning: gateway.pinning }),
      ...(gateway.quarantineOnFinding === null
        ? {}
        : { quarantineOnFinding: gateway.quarantineOnFinding }),
      ...(gateway.eraPin === 'auto' ? {} : { eraPin: gateway.eraPin }),
      ...(pins.has(gateway.id) ? { pins: pins.get(gateway.id) } : {}),
      ...(gateway.settings === null ? {} : { settings: normalGatewaySettings(gateway.settings) }),
    }));
  },

  async upsert(items, ctx) {
    const now = new Date();
    const repository = ctx.em.getRepository(Gateway);
    const existing = new Map((await repository.find()).map((gateway) => [gateway.name, gateway]));
    for (const item of items) {
      const where = `Gateway '${item.name}'`;
      const slug = gatewaySlug(item.name);
      if (!slug) throw invalid(`${where} has no letters or digits to make a slug from`);
      if (item.transport === 'sse' && item.eraPin === '2026-07-28')
        throw invalid(`${where}: the sse transport is of the 2025 era, eraPin takes auto or 2025`);
      if (item.transport === 'openapi' && item.eraPin !== 'auto')
        throw invalid(`${where}: an openapi gateway speaks no MCP era, eraPin takes only auto`);
      const stdio = stdioOf(item, ctx, where);
      const url = stdio ? null : upstreamUrl(item.url, where);
      const openapi = openApiColumnsOf(item, where);
      const teamId = teamIdOf(ctx, item.team, where);
      const credentials = resolveCredentials(item, ctx);
      const gateway = existing.get(item.name) ?? null;
      const current = gateway && openCredentials(ctx.encryptionKey, gateway);
      const launch = gateway && stdioLaunchOf(ctx.encryptionKey, gateway);
      const fields = scalarChanges(
        gateway && {
          url: gateway.url,
          transport: gateway.transport,
          team: teamNameOf(ctx, gateway.teamId),
          enabled: gateway.enabled,
          command: launch?.command ?? null,
          args: JSON.stringify(launch?.args ?? null),
          cwd: launch?.cwd ?? null,
          openapi: openApiShown(gateway),
          pinning: gateway.pinning,
          quarantineOnFinding: gateway.quarantineOnFinding,
          eraPin: gateway.eraPin,
          settings: JSON.stringify(normalGatewaySettings(gateway.settings)),
        },
        {
          url,
          transport: item.transport,
          team: item.team,
          enabled: item.enabled,
          command: stdio?.command ?? null,
          args: JSON.stringify(stdio?.args ?? null),
          cwd: stdio?.cwd ?? null,
          openapi: openApiShown(openapi),
          pinning: item.pinning,
          quarantineOnFinding: item.quarantineOnFinding,
          eraPin: item.eraPin,
          settings: JSON.stringify(normalGatewaySettings(item.settings)),
        },
      );
      const authChanged = JSON.stringify(current) !== JSON.stringify(credentials);
      if (authChanged) fields.push(authChange(current, credentials));
      const envChanged = JSON.stringify(launch?.env ?? {}) !== JSON.stringify(stdio?.env ?? {});
      if (envChanged)
        fields.push({ field: 'env', from: SECRET_SHOWN, to: `${SECRET_SHOWN}, changed` });
      if (gateway !== null && fields.length === 0) {
        const pinned = item.pins ? await applyPins(ctx, gateway, item.pins, now) : [];
        if (pinned.length > 0)
          ctx.changes.push({ action: 'update', kind: 'gateway', name: item.name, fields: pinned });
        continue;
      }
      if (gateway?.authType === 'oauth' && (authChanged || gateway.url !== url))
        await ctx.forgetOAuth(ctx.em, gateway.id);
      const saved = await repository.save(
        Object.assign(gateway ?? repository.create(), {
          name: item.name,
          slug,
          url,
          transport: item.transport,
          teamId,
          enabled: item.enabled,
          stdioCommand: stdio?.command ?? null,
          stdioArgs: stdio ? stdio.args : null,
          stdioCwd: stdio?.cwd ?? null,
          ...openapi,
          ...(envChanged || gateway === null
            ? stdio
              ? sealStdioEnv(ctx.encryptionKey, stdio.env)
              : { stdioEnvNames: null, stdioEnv: null }
            : {}),
          ...(authChanged ? sealCredentials(ctx.encryptionKey, credentials) : {}),
          pinning: item.pinning,
          quarantineOnFinding: item.quarantineOnFinding,
          eraPin: item.eraPin,
          settings: normalGatewaySettings(item.settings),
        }),
      );
      // New settings judge what is served now, and pinning switched on pins what is not held.
      if (gateway !== null && fields.some((field) => PIN_SETTINGS.has(field.field)))
        await ctx.rejudgePins(ctx.em, saved, pinningSwitchedOn(fields));
      const reconnect = gateway === null || fields.some((field) => !SETTINGS_ONLY.has(field.field));
      if (item.enabled && (reconnect || !gateway?.enabled)) ctx.gatewaysToSync.add(saved.id);
      if (reconnect) ctx.pendingSlugs.add(slug);
      const pinned = item.pins ? await applyPins(ctx, saved, item.pins, now) : [];
      ctx.changed.gatewayIds.add(saved.id);
      ctx.changes.push({
        action: gateway === null ? 'create' : 'update',
        kind: 'gateway',
        name: item.name,
        fields: [...fields, ...pinned],
      });
    }
  },

  async prune(items, ctx) {
    const named = new Set(items.map((item) => item.name));
    const gateways = await ctx.em.getRepository(Gateway).find({ order: { name: 'ASC' } });
    for (const gateway of gateways.filter((gateway) => !named.has(gateway.name))) {
      await warnCascades(ctx, `Gateway '${gateway.name}'`, gateway.id, {
        '# server memberships of its tools':
          'SELECT count(*) AS n FROM server_tool st JOIN tool t ON t.id = st.tool_id WHERE t.gateway_id = $1',
        '# rate limits on its tools': 'SELECT count(*) AS n FROM rate_limit WHERE gateway_id = $1',
        '# consolidated tools’ members of its tools':
          'SELECT count(*) AS n FROM consolidated_member m JOIN tool t ON t.id = m.tool_id WHERE t.gateway_id = $1',
      });
      await ctx.em.getRepository(Gateway).delete({ id: gateway.id });
      ctx.changed.gatewayIds.add(gateway.id);
      ctx.changes.push({ action: 'delete', kind: 'gateway', name: gateway.name, fields: [] });
    }
  },
});

/** Fields that change what a gateway does with its catalogue, not how it reaches the upstream. */
const SETTINGS_ONLY = new Set(['team', 'enabled', 'pinning', 'quarantineOnFinding', 'settings']);

/** Fields by which a gateway judges its definitions. */
const PIN_SETTINGS = new Set(['pinning', 'quarantineOnFinding']);

function pinningSwitchedOn(fields: FieldChange[]): boolean {
  const change = fields.find((field) => field.field === 'pinning');
  return change !== undefined && change.from === 'off' && change.to !== 'off';
}

function upstreamUrl(raw: string | undefined, where: string): string {
  if (raw === undefined) throw invalid(`${where} needs a url (or transport: stdio and a command)`);
  if (!isURL(raw, UPSTREAM_URL_OPTIONS))
    throw invalid(
      // Without what could be credentials in it (`user:password@`).
      `${where} has url '${raw.replace(/\/\/[^/@]*@/, '//…@').slice(0, 300)}', which is not an absolute http(s) URL without credentials`,
    );
  const href = new URL(raw).href;
  if (href.length > URL_MAX_LENGTH) throw invalid(`${where} has a url that is too long`);
  return href;
}

function resolveCredentials(item: GatewayItem, ctx: ApplyContext): GatewayCredentials {
  const where = `Gateway '${item.name}'`;
  const auth = item.auth;
  switch (auth.type) {
    case 'none':
      return { type: 'none' };
    case 'bearer': {
      const token = resolveSecret(auth.token, ctx.secrets, `${where} auth.token`);
      if (token.length > 8192 || /[\r\n\0]/.test(token))
        throw invalid(`${where} auth.token must be one line of at most 8192 characters`);
      return { type: 'bearer', token };
    }
    case 'headers': {
      const headers = Object.fromEntries(
        Object.entries(auth.headers).map(([name, ref]) => [
          name,
          resolveSecret(ref, ctx.secrets, `${where} auth.headers.${name}`),
        ]),
      );
      const problem = headerMapProblem(headers);
      if (problem !== null) throw invalid(`${where} auth.headers ${problem}`);
      return { type: 'headers', headers };
    }
    case 'oauth': {
      if (auth.clientSecret !== undefined && auth.clientId === undefined)
        throw invalid(`${where} auth.clientSecret needs auth.clientId`);
      return {
        type: 'oauth',
        mode: auth.mode,
        ...(auth.clientId === undefined ? {} : { clientId: auth.clientId }),
        ...(auth.clientSecret === undefined
          ? {}
          : {
              clientSecret: resolveSecret(
                auth.clientSecret,
                ctx.secrets,
                `${where} auth.clientSecret`,
              ),
            }),
        ...(auth.scope === undefined ? {} : { scope: auth.scope }),
      };
    }
    case 'token-exchange': {
      const { clientSecret, ...settings } = auth;
      return {
        ...settings,
        ...(clientSecret === undefined
          ? {}
          : {
              clientSecret: resolveSecret(clientSecret, ctx.secrets, `${where} auth.clientSecret`),
            }),
      };
    }
  }
}

interface StdioWanted {
  command: string;
  args: string[];
  cwd: string | null;
  env: Record<string, string>;
}

/**
 * What a stdio gateway launches, its environment read from its references; null for HTTP. The
 * rules are the REST API's: a command on STDIO_COMMANDS, never a shell, secrets only in env.
 */
function stdioOf(item: GatewayItem, ctx: ApplyContext, where: string): StdioWanted | null {
  if (item.transport !== 'stdio') {
    for (const field of ['command', 'args', 'cwd', 'env'] as const)
      if (item[field] !== undefined) throw invalid(`${where}: ${field} applies only to stdio`);
    return null;
  }
  if (item.url !== undefined) throw invalid(`${where}: url does not apply to stdio`);
  if (item.auth.type !== 'none')
    throw invalid(`${where}: a stdio gateway takes its secrets in env`);
  if (item.command === undefined) throw invalid(`${where} needs a command for the stdio transport`);
  if (!ctx.stdioCommands.includes(item.command))
    throw invalid(
      ctx.stdioCommands.length === 0
        ? `${where}: stdio upstreams are off; set STDIO_COMMANDS to the commands Portico may launch`
        : `${where}: the command '${item.command}' is not on STDIO_COMMANDS (${ctx.stdioCommands.join(', ')})`,
    );
  const env = Object.fromEntries(
    Object.entries(item.env ?? {}).map(([name, ref]) => [
      name,
      resolveSecret(ref, ctx.secrets, `${where} env.${name}`),
    ]),
  );
  const problem = envMapProblem(env);
  if (problem !== null) throw invalid(`${where} env ${problem}`);
  return { command: item.command, args: item.args ?? [], cwd: item.cwd ?? null, env };
}

/** A stdio gateway's launch; its environment as references the operator must provide. */
function stdioPlaceholder(gateway: Gateway): Partial<z.input<typeof gatewayItem>> {
  if (gateway.transport !== 'stdio' || gateway.stdioCommand === null) return {};
  const prefix = gateway.slug.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  const names = gateway.stdioEnvNames ?? [];
  return {
    command: gateway.stdioCommand,
    ...(gateway.stdioArgs && gateway.stdioArgs.length > 0 ? { args: gateway.stdioArgs } : {}),
    ...(gateway.stdioCwd === null ? {} : { cwd: gateway.stdioCwd }),
    ...(names.length === 0
      ? {}
      : { env: Object.fromEntries(names.map((name) => [name, { fromEnv: `${prefix}_${name}` }])) }),
  };
}

/** Which part of the credentials changed, never their values. */
function authChange(current: GatewayCredentials | null, wanted: GatewayCredentials): FieldChange {
  if (current === null || current.type !== wanted.type)
    return { field: 'auth', from: current?.type, to: wanted.type };
  return { field: 'auth', from: SECRET_SHOWN, to: `${SECRET_SHOWN}, changed` };
}

/**
 * Export never writes a credential: it names an environment variable the operator must provide
 * (or replaces with a `fromFile` reference to a mounted secret).
 */
function authPlaceholder(gateway: Gateway, key: Buffer): { auth?: z.input<typeof gatewayAuth> } {
  const prefix = gateway.slug.toUpperCase().replace(/[^A-Z0-9]+/g, '_');
  switch (gateway.authType) {
    case 'none':
      return {};
    case 'oauth': {
      const settings = openCredentials(key, gateway);
      if (settings.type !== 'oauth') return {};
      return {
        auth: {
          type: 'oauth',
          mode: settings.mode,
          ...(settings.clientId === undefined ? {} : { clientId: settings.clientId }),
          ...(settings.clientSecret === undefined
            ? {}
            : { clientSecret: { fromEnv: `${prefix}_CLIENT_SECRET` } }),
          ...(settings.scope === undefined ? {} : { scope: settings.scope }),
        },
      };
    }
    case 'token-exchange': {
      const settings = openCredentials(key, gateway);
      if (settings.type !== 'token-exchange') return {};
      const { clientSecret, ...shown } = settings;
      return {
        auth: {
          ...shown,
          ...(clientSecret === undefined
            ? {}
            : { clientSecret: { fromEnv: `${prefix}_CLIENT_SECRET` } }),
        },
      };
    }
    case 'bearer':
      return { auth: { type: 'bearer', token: { fromEnv: `${prefix}_TOKEN` } } };
    case 'headers': {
      const names = headerNames(gateway, key);
      return {
        auth: {
          type: 'headers',
          headers: Object.fromEntries(
            names.map((name) => [
              name,
              { fromEnv: `${prefix}_${name.toUpperCase().replace(/[^A-Z0-9]+/g, '_')}` },
            ]),
          ),
        },
      };
    }
  }
}

/** Header names are not secret; they are sealed with the values, so they are read from there. */
function headerNames(gateway: Gateway, key: Buffer): string[] {
  const credentials = openCredentials(key, gateway);
  return credentials.type === 'headers' ? Object.keys(credentials.headers).sort() : [];
}

function invalid(message: string): ConfigDocumentException {
  return new ConfigDocumentException(ConfigDocumentErrorCode.Invalid, `${message}.`);
}

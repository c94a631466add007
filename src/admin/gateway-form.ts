import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import {
  GATEWAY_AUTH_TYPES,
  type GatewayAuthType,
  OAUTH_MODES,
} from '../upstream/upstream-credentials';
import { GATEWAY_TRANSPORTS } from '../gateways/gateway.entity';
import { FINDING_SEVERITIES, PINNING_MODES } from '../pin-state/definition-pin';
import { ERA_PINS, type EraPin } from '../upstream/eras/protocol-era';
import { type FormBody, formField, formLines } from './form-body';
import {
  emptyExchangeForm,
  EXCHANGE_FIELD_ALIASES,
  exchangeAuthInput,
  type ExchangeFormValues,
  exchangeFormValues,
} from './gateway-form-exchange';
import {
  openApiFormOf,
  type OpenApiFormValues,
  openApiFormValues,
  openApiInput,
} from './gateway-form-openapi';

/** On the edit form, 'keep' leaves the stored credentials as they are. */
export type GatewayAuthChoice = 'keep' | GatewayAuthType;

/** What the gateway form shows back. Credentials are write-only and never among them. */
export interface GatewayFormValues extends OpenApiFormValues, ExchangeFormValues {
  name: string;
  url: string;
  transport: string;
  /** A GatewayAuthChoice, or whatever an edited form sent. */
  authType: string;
  /** For OAuth: the mode, and the non-secret client id and scope. */
  oauthMode: string;
  oauthClientId: string;
  oauthScope: string;
  /** The team chosen on a submitted form ('' for global); absent before one was submitted. */
  teamId?: string;
  /** For stdio: the command, its arguments one a line, the working directory. */
  command: string;
  args: string;
  cwd: string;
  /** How definitions are pinned, and the finding severity that holds one back ('' for none). */
  pinning: string;
  quarantineOnFinding: string;
  /** The era pinned, or 'auto'. */
  eraPin: string;
}

/** DTO paths that the form shows under other names. */
export const GATEWAY_FIELD_ALIASES: Record<string, string> = {
  auth: 'authType',
  'auth.type': 'authType',
  'auth.token': 'token',
  'auth.headers': 'headers',
  'auth.mode': 'oauthMode',
  'auth.clientId': 'oauthClientId',
  'auth.clientSecret': 'oauthClientSecret',
  'auth.scope': 'oauthScope',
  ...EXCHANGE_FIELD_ALIASES,
  env: 'env',
  'openapiSelection.methods': 'openapiMethods',
  'openapiSelection.includeTags': 'openapiIncludeTags',
  'openapiSelection.excludeTags': 'openapiExcludeTags',
  'openapiSelection.includePaths': 'openapiIncludePaths',
  'openapiSelection.excludePaths': 'openapiExcludePaths',
};

const OAUTH_MODE_LABELS: Record<(typeof OAUTH_MODES)[number], string> = {
  shared: 'Shared: an operator connects one account',
  'per-user': 'Per user: each user connects their own account',
  'client-credentials': 'Client credentials (machine to machine)',
};

export function oauthModeOptions(selected: string) {
  return OAUTH_MODES.map((value) => ({
    value,
    label: OAUTH_MODE_LABELS[value],
    selected: value === selected,
  }));
}

export const TRANSPORT_OPTIONS = GATEWAY_TRANSPORTS.map((value) => ({
  value,
  label:
    value === 'sse'
      ? 'SSE (legacy)'
      : value === 'stdio'
        ? 'stdio (a command Portico runs)'
        : value === 'openapi'
          ? 'OpenAPI (a REST service, its operations as tools)'
          : 'Streamable HTTP',
}));

const AUTH_LABELS: Record<GatewayAuthChoice, string> = {
  keep: 'Keep the stored credentials',
  none: 'None',
  bearer: 'Bearer token',
  headers: 'Custom headers',
  oauth: 'OAuth 2.1',
  'token-exchange': "Token exchange: the caller's token exchanged at a token service",
};

export function authOptions(editing: boolean, selected: string) {
  const choices: GatewayAuthChoice[] = editing
    ? ['keep', ...GATEWAY_AUTH_TYPES]
    : [...GATEWAY_AUTH_TYPES];
  return choices.map((value) => ({
    value,
    label: AUTH_LABELS[value],
    selected: value === selected,
  }));
}

export function gatewayFormValues(body: FormBody): GatewayFormValues {
  return {
    name: formField(body, 'name'),
    url: formField(body, 'url'),
    transport: formField(body, 'transport') || 'streamable-http',
    authType: formField(body, 'authType') || 'none',
    oauthMode: formField(body, 'oauthMode') || 'shared',
    oauthClientId: formField(body, 'oauthClientId'),
    oauthScope: formField(body, 'oauthScope'),
    ...(body.teamId === undefined ? {} : { teamId: formField(body, 'teamId') }),
    command: formField(body, 'command'),
    args: formField(body, 'args'),
    cwd: formField(body, 'cwd'),
    pinning: formField(body, 'pinning') || 'off',
    quarantineOnFinding: formField(body, 'quarantineOnFinding'),
    eraPin: formField(body, 'eraPin') || 'auto',
    ...openApiFormValues(body),
    ...exchangeFormValues(body),
  };
}

export function gatewayFormOf(gateway: GatewayResponseDto): GatewayFormValues {
  return {
    name: gateway.name,
    url: gateway.url ?? '',
    transport: gateway.transport,
    authType: 'keep',
    oauthMode: gateway.oauth?.mode ?? 'shared',
    oauthClientId: '',
    oauthScope: '',
    command: gateway.command ?? '',
    args: (gateway.args ?? []).join('\n'),
    cwd: gateway.cwd ?? '',
    pinning: gateway.pinning,
    quarantineOnFinding: gateway.quarantineOnFinding ?? '',
    eraPin: gateway.eraPin,
    ...openApiFormOf(gateway),
    ...emptyExchangeForm(),
  };
}

const ERA_PIN_LABELS: Record<EraPin, string> = {
  auto: 'Automatic: probe what the upstream speaks',
  '2025': '2025: a session opened with initialize',
  '2026-07-28': '2026-07-28: stateless requests',
};

export function eraPinOptions(selected: string) {
  return ERA_PINS.map((value) => ({
    value,
    label: ERA_PIN_LABELS[value],
    selected: value === selected,
  }));
}

const PINNING_LABELS: Record<(typeof PINNING_MODES)[number], string> = {
  off: 'Off: serve changes at once (entries pinned by hand excepted)',
  'first-sight': 'On first sight: pin what is synced; hold later changes for approval',
  review: 'Review: hold new entries and changes for approval',
};

export function pinningOptions(selected: string) {
  return PINNING_MODES.map((value) => ({
    value,
    label: PINNING_LABELS[value],
    selected: value === selected,
  }));
}

const FINDING_LABELS: Record<(typeof FINDING_SEVERITIES)[number], string> = {
  high: 'High findings',
  medium: 'Medium or high findings',
  low: 'Any finding',
};

export function findingOptions(selected: string) {
  return [
    { value: '', label: 'Never: show findings, hold nothing back', selected: selected === '' },
    ...FINDING_SEVERITIES.map((value) => ({
      value,
      label: FINDING_LABELS[value],
      selected: value === selected,
    })),
  ];
}

/** `NAME=value` lines as an environment; the DTO then applies the API's rules. */
export function parseEnvLines(text: string): { env: Record<string, string> } | { error: string } {
  const env: Record<string, string> = {};
  for (const [index, line] of text.split(/\r?\n/).entries()) {
    if (line.trim() === '') continue;
    const equals = line.indexOf('=');
    if (equals <= 0) return { error: `Line ${index + 1} is not of the form "NAME=value".` };
    const name = line.slice(0, equals).trim();
    if (name in env) return { error: `The variable '${name}' is given twice.` };
    env[name] = line.slice(equals + 1);
  }
  return { env };
}

/** The stdio fields of the request body; an empty environment on the edit form keeps the stored one. */
function stdioInput(
  body: FormBody,
  editing: boolean,
  input: Record<string, unknown>,
  errors: Record<string, string>,
): void {
  delete input.url;
  delete input.auth;
  input.command = formField(body, 'command').trim();
  input.args = formLines(body, 'args');
  const cwd = formField(body, 'cwd').trim();
  if (cwd !== '') input.cwd = cwd;
  const envText = formField(body, 'env');
  if (editing && envText.trim() === '') return;
  const parsed = parseEnvLines(envText);
  if ('error' in parsed) errors.env = parsed.error;
  else input.env = parsed.env;
}

/** `Name: value` lines as a header map; the DTO then applies the API's header rules. */
export function parseHeaderLines(
  text: string,
): { headers: Record<string, string> } | { error: string } {
  const headers: Record<string, string> = {};
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    if (colon <= 0) return { error: `Line ${index + 1} is not of the form "Header-Name: value".` };
    const name = line.slice(0, colon).trim();
    if (Object.keys(headers).some((existing) => existing.toLowerCase() === name.toLowerCase())) {
      return { error: `The header '${name}' is given twice.` };
    }
    headers[name] = line.slice(colon + 1).trim();
  }
  return { headers };
}

/**
 * The request body the REST API would receive for this form, plus errors the form itself found.
 * With 'keep' (edit only) no `auth` is sent, so the stored credentials stay.
 */
export function gatewayInput(
  body: FormBody,
  editing: boolean,
): { input: Record<string, unknown>; errors: Record<string, string> } {
  const values = gatewayFormValues(body);
  const input: Record<string, unknown> = {
    name: values.name.trim(),
    url: values.url.trim(),
    transport: values.transport,
    pinning: values.pinning,
    quarantineOnFinding: values.quarantineOnFinding === '' ? null : values.quarantineOnFinding,
    eraPin: values.eraPin,
  };
  const errors: Record<string, string> = {};
  switch (values.authType) {
    case 'keep':
      if (!editing) errors.authType = 'Choose how Portico authenticates to the upstream.';
      break;
    case 'none':
      input.auth = { type: 'none' };
      break;
    case 'bearer':
      input.auth = { type: 'bearer', token: formField(body, 'token') };
      break;
    case 'headers': {
      const parsed = parseHeaderLines(formField(body, 'headers'));
      if ('error' in parsed) errors.headers = parsed.error;
      else input.auth = { type: 'headers', headers: parsed.headers };
      break;
    }
    case 'oauth': {
      const secret = formField(body, 'oauthClientSecret');
      input.auth = {
        type: 'oauth',
        mode: values.oauthMode,
        ...(values.oauthClientId.trim() ? { clientId: values.oauthClientId.trim() } : {}),
        ...(secret ? { clientSecret: secret } : {}),
        ...(values.oauthScope.trim() ? { scope: values.oauthScope.trim() } : {}),
      };
      break;
    }
    case 'token-exchange':
      input.auth = exchangeAuthInput(values, formField(body, 'oauthClientSecret'));
      break;
    default:
      input.auth = { type: values.authType };
  }
  if (values.transport === 'stdio') stdioInput(body, editing, input, errors);
  if (values.transport === 'openapi') openApiInput(body, input);
  return { input, errors };
}

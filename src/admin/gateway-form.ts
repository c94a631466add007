import { type GatewayResponseDto } from '../gateways/dto/gateway-response.dto';
import {
  GATEWAY_AUTH_TYPES,
  GATEWAY_TRANSPORTS,
  type GatewayAuthType,
  OAUTH_MODES,
} from '../gateways/gateway.entity';
import { type FormBody, formField } from './form-body';

/** On the edit form, 'keep' leaves the stored credentials as they are. */
export type GatewayAuthChoice = 'keep' | GatewayAuthType;

/** What the gateway form shows back. Credentials are write-only and never among them. */
export interface GatewayFormValues {
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
  label: value === 'sse' ? 'SSE (legacy)' : 'Streamable HTTP',
}));

const AUTH_LABELS: Record<GatewayAuthChoice, string> = {
  keep: 'Keep the stored credentials',
  none: 'None',
  bearer: 'Bearer token',
  headers: 'Custom headers',
  oauth: 'OAuth 2.1',
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
  };
}

export function gatewayFormOf(gateway: GatewayResponseDto): GatewayFormValues {
  return {
    name: gateway.name,
    url: gateway.url,
    transport: gateway.transport,
    authType: 'keep',
    oauthMode: gateway.oauth?.mode ?? 'shared',
    oauthClientId: '',
    oauthScope: '',
  };
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
    default:
      input.auth = { type: values.authType };
  }
  return { input, errors };
}

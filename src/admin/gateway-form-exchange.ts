import { TOKEN_CLIENT_AUTHS, TOKEN_EXCHANGE_DIALECTS } from '../upstream/upstream-credentials';
import { type FormBody, formField } from './form-body';

/** What the form shows back of a token-exchange gateway: never the client secret. */
export interface ExchangeFormValues {
  exchangeTokenUrl: string;
  exchangeDialect: string;
  exchangeClientAuth: string;
  exchangeAudience: string;
  exchangeResource: string;
  exchangeActor: boolean;
}

/** DTO paths of the token exchange that the form shows under other names. */
export const EXCHANGE_FIELD_ALIASES: Record<string, string> = {
  'auth.tokenUrl': 'exchangeTokenUrl',
  'auth.dialect': 'exchangeDialect',
  'auth.clientAuth': 'exchangeClientAuth',
  'auth.audience': 'exchangeAudience',
  'auth.resource': 'exchangeResource',
  'auth.actor': 'exchangeActor',
};

const DIALECT_LABELS: Record<(typeof TOKEN_EXCHANGE_DIALECTS)[number], string> = {
  rfc8693: 'RFC 8693 token exchange (Keycloak, Okta, most)',
  'entra-obo': "Microsoft Entra ID's on-behalf-of",
};

export function exchangeDialectOptions(selected: string) {
  return TOKEN_EXCHANGE_DIALECTS.map((value) => ({
    value,
    label: DIALECT_LABELS[value],
    selected: value === selected,
  }));
}

export function exchangeClientAuthOptions(selected: string) {
  return TOKEN_CLIENT_AUTHS.map((value) => ({
    value,
    label: value === 'client_secret_basic' ? 'HTTP Basic' : 'In the form body',
    selected: value === selected,
  }));
}

export function exchangeFormValues(body: FormBody): ExchangeFormValues {
  return {
    exchangeTokenUrl: formField(body, 'exchangeTokenUrl'),
    exchangeDialect: formField(body, 'exchangeDialect') || 'rfc8693',
    exchangeClientAuth: formField(body, 'exchangeClientAuth') || 'client_secret_basic',
    exchangeAudience: formField(body, 'exchangeAudience'),
    exchangeResource: formField(body, 'exchangeResource'),
    exchangeActor: formField(body, 'exchangeActor') === 'on',
  };
}

/** The edit form starts empty: the settings are sealed with the secret and entered again. */
export function emptyExchangeForm(): ExchangeFormValues {
  return exchangeFormValues({});
}

/** The `auth` of the request body for a token-exchange gateway (client id, secret, scope shared with OAuth). */
export function exchangeAuthInput(
  values: ExchangeFormValues & { oauthClientId: string; oauthScope: string },
  clientSecret: string,
): Record<string, unknown> {
  const optional = (name: string, value: string) =>
    value.trim() === '' ? {} : { [name]: value.trim() };
  return {
    type: 'token-exchange',
    tokenUrl: values.exchangeTokenUrl.trim(),
    dialect: values.exchangeDialect,
    clientAuth: values.exchangeClientAuth,
    clientId: values.oauthClientId.trim(),
    ...(clientSecret ? { clientSecret } : {}),
    ...optional('audience', values.exchangeAudience),
    ...optional('resource', values.exchangeResource),
    ...optional('scope', values.oauthScope),
    actor: values.exchangeActor,
  };
}

/** What an upstream URL may be (the gateway's, an OpenAPI description's, a token service's). */
export const UPSTREAM_URL_OPTIONS = {
  protocols: ['http', 'https'],
  require_protocol: true,
  require_tld: false,
  allow_underscores: true,
  // Credentials belong in `auth`, which is encrypted and never returned; the URL is shown.
  disallow_auth: true,
};

export const URL_MAX_LENGTH = 2048;

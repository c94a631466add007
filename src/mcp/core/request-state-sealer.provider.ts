import { type Provider } from '@nestjs/common';
import { SecretSettings } from '../../config/slices/secrets.settings';
import { UpstreamSettings } from '../../config/slices/upstream.settings';
import { RequestStateSealer } from './request-state-seal';

/** Portico's own requestState, keyed from JWT_SECRET: every replica seals and unseals alike. */
export const REQUEST_STATE_SEALER: Provider = {
  provide: RequestStateSealer,
  useFactory: (secrets: SecretSettings, upstream: UpstreamSettings) =>
    new RequestStateSealer(secrets.jwtSecret, { ttlSeconds: upstream.inputRoundTtlSeconds }),
  inject: [SecretSettings, UpstreamSettings],
};

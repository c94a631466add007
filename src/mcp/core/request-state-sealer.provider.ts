import { type Provider } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { RequestStateSealer } from './request-state-seal';

/** Portico's own requestState, keyed from JWT_SECRET: every replica seals and unseals alike. */
export const REQUEST_STATE_SEALER: Provider = {
  provide: RequestStateSealer,
  useFactory: (config: AppConfig) =>
    new RequestStateSealer(config.jwtSecret, { ttlSeconds: config.inputRoundTtlSeconds }),
  inject: [AppConfig],
};

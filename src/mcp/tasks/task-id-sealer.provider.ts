import { type Provider } from '@nestjs/common';
import { SecretSettings } from '../../config/slices/secrets.settings';
import { TaskIdSealer } from './task-id-seal';

/** Portico's task ids, keyed from JWT_SECRET: every replica seals and opens them alike. */
export const TASK_ID_SEALER: Provider = {
  provide: TaskIdSealer,
  useFactory: (config: SecretSettings) => new TaskIdSealer(config.jwtSecret),
  inject: [SecretSettings],
};

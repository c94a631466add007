import 'reflect-metadata';
import { ConfigError } from './config/load-config';
import { DataDirLockedError } from './database/data-dir-lock';
import { startTracing } from './observability/tracing';
import type * as Serve from './serve';

// Before the app's modules are loaded, so that tracing can instrument `http` and `pg`.
startTracing(process.env);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { serve } = require('./serve') as typeof Serve;

serve(process.env).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});

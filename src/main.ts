import 'reflect-metadata';
import { ConfigError } from './config/app-config';
import { DataDirLockedError } from './database/data-dir-lock';
import { serve } from './serve';

serve(process.env).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});

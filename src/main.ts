import 'reflect-metadata';
import { ConfigError } from './config/app-config';
import { serve } from './serve';

serve(process.env).catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});

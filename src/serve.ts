import { type NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from './app.factory';
import { loadConfig } from './config/app-config';

/** Portico's server, configured from `env` and listening: `npm start`, `portico start`. */
export async function serve(env: NodeJS.ProcessEnv): Promise<NestExpressApplication> {
  const config = loadConfig(env);
  const app = await createApp(config);
  await app.listen(config.port);
  return app;
}

import { Logger } from '@nestjs/common';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { createApp } from './app.factory';
import { loadConfig } from './config/load-config';
import { type Settings } from './config/settings';
import { Metrics } from './observability/metrics';
import { catchUnhandledRejections } from './last-resort';
import { stopTracing } from './observability/tracing';
import { shutDownGracefully } from './shutdown';

/** Portico's server, configured from `env` and listening: `npm start`, `portico start`. */
export async function serve(env: NodeJS.ProcessEnv): Promise<NestExpressApplication> {
  const config = loadConfig(env);
  const app = await createApp(config);
  const logger = new Logger('Settings');
  for (const warning of config.settingWarnings) logger.warn(warning);
  catchUnhandledRejections(app.get(Metrics));
  await listen(app, config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      shutDownGracefully(app)
        .then(() => stopTracing())
        .then(
          () => process.exit(0),
          (error: unknown) => {
            console.error(error);
            process.exit(1);
          },
        );
    });
  return app;
}

/** Listens on PORT, on the HOST address, else on every interface. */
export async function listen(app: NestExpressApplication, config: Settings): Promise<void> {
  if (config.host === null) await app.listen(config.port);
  else await app.listen(config.port, config.host);
}

import { type INestApplication, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { json, type NextFunction, type Request, type Response, urlencoded } from 'express';
import { setUpAdminPages } from './admin/admin-views';
import { AdminSessionService } from './admin/admin-session.service';
import { AppModule } from './app.module';
import { bearerToken } from './auth/auth.guard';
import { TokenService } from './auth/token.service';
import { type AppConfig, type LogLevel } from './config/app-config';
import { NulCharacterPipe } from './common/nul-character.pipe';
import { ProblemFilter, toProblem } from './common/problem.filter';
import { RequestValidationException } from './common/request-validation.exception';
import { VALIDATION_OPTIONS } from './common/validation';
import { isMcpPath, originCheck } from './mcp/transport/origin-check';
import { originAllowed } from './mcp/transport/origin-policy';

const LOG_LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

/** Builds the configured application; `main` listens on it, tests too. */
export async function createApp(config: AppConfig): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(config), {
    bodyParser: false,
    logger: LOG_LEVELS.slice(0, LOG_LEVELS.indexOf(config.logLevel) + 1),
  });
  app.disable('x-powered-by');
  app.set('trust proxy', 'loopback, linklocal, uniquelocal');
  app.use(originCheck(config));
  // The MCP endpoints read their own bodies, so that even a refused body gets a JSON-RPC error.
  const parsers = [
    json({ limit: config.bodyLimitBytes, type: ['application/json', 'application/*+json'] }),
    urlencoded({ limit: config.bodyLimitBytes, extended: false }),
  ];
  for (const parser of parsers)
    app.use((request: Request, response: Response, next: NextFunction) =>
      isMcpPath(request.path) ? next() : parser(request, response, next),
    );
  app.useGlobalPipes(
    new NulCharacterPipe(),
    new ValidationPipe({
      ...VALIDATION_OPTIONS,
      transform: true,
      exceptionFactory: (errors) => new RequestValidationException(errors),
    }),
  );
  app.useGlobalFilters(new ProblemFilter());
  app.enableCors({
    origin: (origin, allow) => allow(null, originAllowed(origin, config)),
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: [
      'Authorization',
      'Content-Type',
      'Mcp-Session-Id',
      'Mcp-Protocol-Version',
      'Last-Event-ID',
    ],
    exposedHeaders: ['Mcp-Session-Id', 'WWW-Authenticate'],
    maxAge: 600,
  });
  setUpAdminPages(app);
  setUpApiDocs(app);
  return app;
}

/** The API docs need a bearer token, or a signed-in admin session so that the pages can link them. */
function setUpApiDocs(app: INestApplication): void {
  const tokens = app.get(TokenService);
  const sessions = app.get(AdminSessionService);
  app.use(
    ['/api/docs', '/api/openapi.json'],
    (request: Request, response: Response, next: NextFunction) => {
      if (sessions.read(request)) {
        next();
        return;
      }
      try {
        tokens.verify(bearerToken(request));
        next();
      } catch (error) {
        const problem = toProblem(error);
        response
          .status(problem.status)
          .setHeader('WWW-Authenticate', 'Bearer')
          .type('application/problem+json')
          .send(JSON.stringify(problem));
      }
    },
  );
  const document = SwaggerModule.createDocument(
    app,
    new DocumentBuilder()
      .setTitle('Portico')
      .setDescription(
        'Enterprise MCP gateway: upstream gateways, their tools under virtual names, and virtual servers.',
      )
      .setVersion('1')
      .addBearerAuth()
      .build(),
  );
  SwaggerModule.setup('api/docs', app, document, {
    jsonDocumentUrl: 'api/openapi.json',
    raw: ['json'],
  });
}

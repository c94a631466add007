import { type INestApplication, ValidationPipe } from '@nestjs/common';
import {
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { NestFactory } from '@nestjs/core';
import { Logger } from 'nestjs-pino';
import { type NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { json, type NextFunction, type Request, type Response, urlencoded } from 'express';
import { setUpAdminPages } from './admin/admin-views';
import { auditChanges } from './audit/audit-changes.middleware';
import { AuditTrail } from './audit/audit-trail.service';
import { AppModule } from './app.module';
import { AuthErrorCode, AuthException } from './auth/auth.exception';
import { mcpOnly } from './auth/principal';
import { bearerToken, PrincipalResolver } from './auth/principal-resolver';
import { type Settings } from './config/settings';
import { bodyDepthLimit } from './common/body-depth';
import { hostCheck } from './common/host-check';
import { capConnections, LimitedExpressAdapter } from './http-server-limits';
import { NulCharacterPipe } from './common/nul-character.pipe';
import { ProblemFilter, toProblem } from './common/problem.filter';
import { RequestValidationException } from './common/request-validation.exception';
import { VALIDATION_OPTIONS } from './common/validation';
import { McpHttpHandler } from './mcp/http/mcp-http.handler';
import { originAllowed } from './common/http-request';
import {
  CORS_ALLOWED_HEADERS,
  CORS_EXPOSED_HEADERS,
  isMcpPath,
  originCheck,
} from './mcp/http/mcp-paths';
import { requestLogging } from './observability/logging';
import { requestContext } from './observability/request-context';
import { httpMetrics, Metrics } from './observability/metrics';
import { setUpOAuth } from './oauth/oauth-routes';

/** Builds the configured application; `main` listens on it, tests too. */
export async function createApp(config: Settings): Promise<NestExpressApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config),
    new LimitedExpressAdapter(config.httpLimits),
    { bodyParser: false, bufferLogs: true },
  );
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  const server: Server = app.getHttpServer();
  const metrics = app.get(Metrics);
  capConnections(server, config.httpLimits, () => metrics.connectionsDropped.inc());
  serveMcpAheadOfExpress(server, app.get(McpHttpHandler));
  // Any peer could otherwise choose its own req.ip (and so its login-throttle key) and req.secure.
  app.set('trust proxy', config.trustedProxies.length > 0 ? [...config.trustedProxies] : false);
  app.use(requestContext);
  app.use(requestLogging(config));
  app.use(httpMetrics(metrics));
  app.use(auditChanges(app.get(AuditTrail)));
  app.use(originCheck(config));
  app.use(hostCheck(config));
  // The MCP endpoints read their own bodies, so that even a refused body gets a JSON-RPC error.
  const parsers = [
    json({ limit: config.bodyLimitBytes, type: ['application/json', 'application/*+json'] }),
    urlencoded({ limit: config.bodyLimitBytes, extended: false }),
  ];
  for (const parser of parsers)
    app.use((request: Request, response: Response, next: NextFunction) =>
      isMcpPath(request.path) ? next() : parser(request, response, next),
    );
  app.use(bodyDepthLimit(config.jsonMaxDepth));
  app.useGlobalPipes(
    new NulCharacterPipe(),
    new ValidationPipe({
      ...VALIDATION_OPTIONS,
      transform: true,
      exceptionFactory: (errors) => new RequestValidationException(errors),
    }),
  );
  app.useGlobalFilters(new ProblemFilter());
  setUpOAuth(app);
  app.enableCors({
    origin: (origin, allow) => allow(null, originAllowed(origin, config)),
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });
  setUpAdminPages(app);
  setUpApiDocs(app);
  return app;
}

/**
 * The Streamable HTTP endpoints are answered by McpHttpHandler before Express sees the request
 * (see there why); everything else goes to Express as Nest set it up.
 */
function serveMcpAheadOfExpress(server: Server, mcp: McpHttpHandler): void {
  const listeners = server.listeners('request') as RequestListener[];
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (mcp.handle(request, response)) return;
    for (const listener of listeners) listener(request, response);
  });
}

/** Swagger UI's page has inline styles and nothing else inline; its scripts are its own files. */
const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/**
 * The API docs need a token that may use the REST API (a token scoped to servers may not), or a
 * signed-in admin session so that the pages can link them.
 */
function setUpApiDocs(app: INestApplication): void {
  const principals = app.get(PrincipalResolver);
  app.use(
    ['/api/docs', '/api/openapi.json'],
    (request: Request, response: Response, next: NextFunction) => {
      response.setHeader('Content-Security-Policy', DOCS_CSP);
      response.setHeader('X-Content-Type-Options', 'nosniff');
      response.setHeader('X-Frame-Options', 'DENY');
      response.setHeader('Referrer-Policy', 'same-origin');
      response.setHeader('Cache-Control', 'no-store');
      const check = async () => {
        if (await principals.fromSession(request)) return;
        if (mcpOnly(await principals.fromBearer(bearerToken(request)))) {
          throw new AuthException(
            AuthErrorCode.Forbidden,
            'This token may only be used on MCP endpoints.',
          );
        }
      };
      check().then(
        () => next(),
        (error: unknown) => {
          const problem = toProblem(error);
          if (problem.status === 401) response.setHeader('WWW-Authenticate', 'Bearer');
          response
            .status(problem.status)
            .type('application/problem+json')
            .send(JSON.stringify(problem));
        },
      );
    },
  );
  const document = () =>
    SwaggerModule.createDocument(
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

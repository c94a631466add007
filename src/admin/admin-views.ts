import { type NestExpressApplication } from '@nestjs/platform-express';
import { type NextFunction, type Request, type Response } from 'express';
import Handlebars from 'handlebars';
import { create as createHbs } from 'hbs';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  formatTime,
  isLongToolName,
  plural,
  prettyJson,
  serialNumber,
  truncate,
} from './view-helpers';
import { projectRoot } from '../common/project-root';

export { projectRoot };

/**
 * Strict policy for every admin response: scripts and styles only from Portico's own static files
 * (no inline script or style at all, so no nonce is needed), no framing, forms post only here.
 */
export const ADMIN_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** A Handlebars environment with the admin helpers and partials, separate from the global one. */
export function createViewEngine(viewsDir: string): typeof Handlebars {
  const handlebars = Handlebars.create();
  const helpers: Record<string, (...args: never[]) => unknown> = {
    serial: (index: number, offset: number) => serialNumber(index, Number(offset) || 0),
    truncate: (text: string, max: number) => truncate(text, max),
    json: (value: unknown) => prettyJson(value),
    time: (value: string | null) => formatTime(value),
    longName: (name: string) => isLongToolName(name),
    // An optional third argument is the plural form; Handlebars' options object comes last.
    plural: (count: number, singular: string, pluralForm: unknown) =>
      plural(count, singular, typeof pluralForm === 'string' ? pluralForm : undefined),
    eq: (a: unknown, b: unknown) => a === b,
    mebibytes: (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`,
    // The last argument is Handlebars' options object.
    concat: (...parts: unknown[]) => parts.slice(0, -1).join(''),
    join: (list: unknown[], separator: string) =>
      Array.isArray(list) ? list.join(typeof separator === 'string' ? separator : ', ') : '',
  };
  for (const [name, helper] of Object.entries(helpers)) {
    handlebars.registerHelper(name, helper as Handlebars.HelperDelegate);
  }
  const partials = join(viewsDir, 'partials');
  for (const file of readdirSync(partials).filter((name) => name.endsWith('.hbs'))) {
    handlebars.registerPartial(basename(file, '.hbs'), readFileSync(join(partials, file), 'utf8'));
  }
  return handlebars;
}

function securityHeaders(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Content-Security-Policy', ADMIN_CSP);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.setHeader('X-Frame-Options', 'DENY');
  response.setHeader('Referrer-Policy', 'same-origin');
  response.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  response.setHeader('Cache-Control', 'no-store');
  next();
}

/** Handlebars views from views/, the admin's static CSS and JS, and security headers on its pages. */
export function setUpAdminPages(app: NestExpressApplication): void {
  const root = projectRoot();
  const viewsDir = join(root, 'views');
  const engine = createHbs(createViewEngine(viewsDir));
  app.engine(
    'hbs',
    (path: string, options: object, callback: (error: Error | null, html?: string) => void) =>
      engine.__express(path, options, callback),
  );
  app.setBaseViewsDir(viewsDir);
  app.setViewEngine('hbs');
  app.set('view options', { layout: 'layouts/main' });
  // Templates are part of the build; compiling each once keeps page renders cheap.
  app.set('view cache', true);
  app.use(['/admin', '/oauth/consent'], securityHeaders);
  app.useStaticAssets(join(root, 'public', 'admin'), {
    prefix: '/admin/assets/',
    index: false,
    maxAge: '1h',
  });
}

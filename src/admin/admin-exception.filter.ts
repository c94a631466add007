import {
  type ArgumentsHost,
  Catch,
  type ExceptionFilter,
  Injectable,
  Logger,
} from '@nestjs/common';
import { type Request, type Response } from 'express';
import { AuthErrorCode, AuthException } from '../auth/auth.exception';
import { toProblem } from '../common/problem.filter';
import { AdminErrorCode, AdminException } from './admin.exception';
import { AdminPages } from './admin-pages.service';
import { loginPath } from './login-redirect';

/**
 * Errors on admin pages become pages, never JSON or a stack trace: no session sends a GET to the
 * login page, a refused form post is a 403 page, a missing record a 404 page, and anything
 * unexpected is logged and shown as a plain 500 page.
 */
@Catch()
@Injectable()
export class AdminExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger(AdminExceptionFilter.name);

  constructor(private readonly pages: AdminPages) {}

  catch(error: unknown, host: ArgumentsHost): void {
    const request = host.switchToHttp().getRequest<Request>();
    const response = host.switchToHttp().getResponse<Response>();
    // An answer begun already (an export's rows) is cut off: the client sees it incomplete.
    if (response.headersSent) {
      if (!response.writableEnded) response.destroy();
      return;
    }
    const sessionRequired =
      (error instanceof AdminException && error.code === AdminErrorCode.SessionRequired) ||
      (error instanceof AuthException && error.code === AuthErrorCode.Unauthenticated);
    if (sessionRequired) {
      if (request.method === 'GET' || request.method === 'HEAD') {
        response.redirect(303, loginPath(request.originalUrl));
        return;
      }
      this.page(request, response, 403, 'Session expired', 'Log in to continue.', true);
      return;
    }
    if (error instanceof AdminException) {
      switch (error.code) {
        case AdminErrorCode.SessionRequired:
          return;
        case AdminErrorCode.CsrfRejected:
          this.page(request, response, 403, 'Form refused', error.message, false);
          return;
      }
    }
    const problem = toProblem(error);
    if (problem.status >= 500) {
      this.logger.error(
        `${request.method} ${request.originalUrl} failed`,
        error instanceof Error ? error.stack : String(error),
      );
    }
    this.page(request, response, problem.status, problem.title, problem.detail, false);
  }

  private page(
    request: Request,
    response: Response,
    status: number,
    title: string,
    message: string,
    offerLogin: boolean,
  ): void {
    this.pages
      .render(
        request,
        response,
        'error',
        { title, section: 'error', status, message, offerLogin },
        status,
      )
      .catch((renderError: unknown) => {
        this.logger.error(
          'Rendering the error page failed',
          renderError instanceof Error ? renderError.stack : String(renderError),
        );
        if (!response.headersSent) response.status(status).type('text').send(title);
      });
  }
}

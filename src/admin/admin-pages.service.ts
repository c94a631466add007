import { Injectable } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { auditAs } from '../audit/audit-changes.middleware';
import { AdminSessionService } from '../auth/admin-session.service';
import { roleAtLeast } from '../common/roles';
import { TeamScope } from '../auth/team-scope';
import { QuarantineQuery } from '../pinning/quarantine.query';
import { type Flash, FlashMessages } from './flash.service';
import { type FormErrors } from './form-errors';

/** The sections of the navigation; a page names the one it belongs to. */
export type AdminSection =
  | 'dashboard'
  | 'gateways'
  | 'tools'
  | 'consolidated-tools'
  | 'resources'
  | 'prompts'
  | 'skills'
  | 'servers'
  | 'tokens'
  | 'users'
  | 'teams'
  | 'rate-limits'
  | 'policies'
  | 'audit'
  | 'quarantine'
  | 'mcp-registry'
  | 'connections'
  | 'playground'
  | 'login'
  | 'consent'
  | 'error';

export interface PageModel {
  title: string;
  section: AdminSection;
  [name: string]: unknown;
}

/** Renders admin views with what every page needs (who is signed in, the CSRF token, the flash). */
@Injectable()
export class AdminPages {
  constructor(
    private readonly sessions: AdminSessionService,
    private readonly flash: FlashMessages,
    private readonly quarantine: QuarantineQuery,
  ) {}

  async render(
    request: Request,
    response: Response,
    view: string,
    model: PageModel,
    status = 200,
  ): Promise<void> {
    const session = request.adminSession;
    const principal = session ? request.principal : undefined;
    const operator = principal !== undefined && roleAtLeast(principal.role, 'operator');
    const locals = {
      csrfToken: session ? this.sessions.csrfToken(session.sid) : undefined,
      ...model,
      admin: principal
        ? {
            username: principal.name,
            role: principal.role,
            operator,
            isAdmin: principal.role === 'admin',
            // What waits for an operator's decision, in the navigation of every page.
            quarantined: operator ? await this.quarantine.count(TeamScope.of(principal)) : 0,
          }
        : null,
      flash: this.flash.take(request, response),
    };
    const html = await new Promise<string>((resolve, reject) => {
      response.render(view, locals, (error: Error | null, rendered?: string) => {
        if (error) reject(error);
        else resolve(rendered ?? '');
      });
    });
    response.status(status).type('html').send(html);
  }

  /** 303 See Other, so that the browser follows with a GET; with a message for the next page. */
  redirect(request: Request, response: Response, location: string, flash?: Flash): void {
    if (flash) this.flash.set(request, response, flash.kind, flash.text);
    response.redirect(303, location);
  }

  /**
   * Back to `location`, saying why the change was refused; its audit entry records the refusal
   * (`failure.status`), not the redirect.
   */
  refuse(
    request: Request,
    response: Response,
    location: string,
    failure: FormErrors,
    text: string,
  ): void {
    auditAs(response, failure.status);
    this.redirect(request, response, location, { kind: 'error', text });
  }
}

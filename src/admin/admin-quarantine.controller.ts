import { Body, Get, NotFoundException, Param, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { UuidParam } from '../common/uuid-param';
import { validateDto } from '../common/validation';
import { PinDecisionDto } from '../pinning/dto/pin-decision.dto';
import { QuarantineQueryDto } from '../pinning/dto/quarantine.dto';
import { PIN_KINDS, type PinKind } from '../pinning/pinned-kinds';
import { PinRescans } from '../pinning/pin-rescans.service';
import { PinsService } from '../pinning/pins.service';
import { QuarantineQuery } from '../pinning/quarantine.query';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { type FormBody, formField } from './form-body';
import { formErrors } from './form-errors';
import { submitForm } from './form-submission';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { entryPath } from './pin-view';
import { pageScope } from './team-field';
import { plural } from './view-helpers';

const KIND_LABELS: Record<PinKind, string> = {
  tool: 'Tool',
  prompt: 'Prompt',
  'resource-template': 'Resource template',
};

/**
 * The quarantine queue, and the decisions posted from an entry's page: the page shows the
 * definition that waits and posts its hash, so what is approved is what the operator saw.
 */
@AdminController('admin')
@MinRole('operator')
export class AdminQuarantineController {
  constructor(
    private readonly pins: PinsService,
    private readonly quarantine: QuarantineQuery,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
    private readonly rescans: PinRescans,
  ) {}

  /** `GET /api/v1/quarantine`, 25 a page, filtered by gateway and kind. */
  @Get('quarantine')
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const page = pageNumber(query.page);
    const filter = {
      gatewayId: typeof query.gatewayId === 'string' ? query.gatewayId : '',
      kind: typeof query.kind === 'string' ? query.kind : '',
    };
    const submission = await submitForm(
      QuarantineQueryDto,
      {
        limit: PAGE_SIZE,
        offset: offsetOf(page),
        ...(filter.gatewayId ? { gatewayId: filter.gatewayId } : {}),
        ...(filter.kind ? { kind: filter.kind } : {}),
      },
      {},
      (dto) => this.quarantine.queue(dto, pageScope(request)),
    );
    const result = submission.ok ? submission.result : { items: [], total: 0 };
    const gateways = await this.catalog.gatewayNames(pageScope(request));
    await this.pages.render(
      request,
      response,
      'quarantine',
      {
        title: 'Quarantine',
        section: 'quarantine',
        items: result.items.map((item) => ({
          ...item,
          kindLabel: KIND_LABELS[item.kind],
          href: entryPath(item.kind, item.id),
        })),
        filter,
        filtered: Boolean(filter.gatewayId || filter.kind),
        kinds: PIN_KINDS.map((kind) => ({
          value: kind,
          label: KIND_LABELS[kind],
          selected: kind === filter.kind,
        })),
        gateways: gateways.map((gateway) => ({
          id: gateway.id,
          name: gateway.name,
          selected: gateway.id === filter.gatewayId,
        })),
        pager: pager(page, result.total, (n) =>
          hrefWith('/admin/quarantine', { ...filter, page: n }),
        ),
        errors: submission.ok ? {} : submission.errors.fields,
        rescanAll: pageScope(request).everything,
      },
      submission.ok ? 200 : submission.errors.status,
    );
  }

  /** `POST /api/v1/gateways/rescan`: every gateway's definitions scanned and judged again. */
  @Post('quarantine/rescan')
  @MinRole('admin')
  async rescanAll(@Req() request: Request, @Res() response: Response): Promise<void> {
    const { items } = await this.rescans.rescanAll(pageScope(request), request.principal!);
    const count = (field: 'scanned' | 'withFindings') =>
      items.reduce((sum, item) => sum + item[field], 0);
    const held = items.flatMap((item) => item.quarantined);
    const released = items.flatMap((item) => item.released);
    this.pages.redirect(request, response, '/admin/quarantine', {
      kind: held.length > 0 ? 'error' : 'success',
      text: `Scanned ${plural(count('scanned'), 'definition')} of ${plural(items.length, 'gateway')} again, ${count('withFindings')} with findings: ${held.length} quarantined, ${released.length} released.`,
    });
  }

  /** `POST /api/v1/<kind>s/:id/approve` with the hash the page showed. */
  @Post('pins/:kind/:id/approve')
  async approve(
    @Req() request: Request,
    @Res() response: Response,
    @Param('kind') kind: string,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const pinKind = kindOf(kind);
    await this.decide(request, response, pinKind, id, APPROVED, async () => {
      const { hash } = await validateDto(PinDecisionDto, { hash: formField(body, 'hash') });
      await this.pins.approve(pinKind, id, hash, pageScope(request), request.principal!);
    });
  }

  /** `POST /api/v1/<kind>s/:id/reject` with the hash the page showed. */
  @Post('pins/:kind/:id/reject')
  async reject(
    @Req() request: Request,
    @Res() response: Response,
    @Param('kind') kind: string,
    @UuidParam() id: string,
    @Body() body: FormBody,
  ): Promise<void> {
    const pinKind = kindOf(kind);
    await this.decide(request, response, pinKind, id, REJECTED, async () => {
      const { hash } = await validateDto(PinDecisionDto, { hash: formField(body, 'hash') });
      await this.pins.reject(pinKind, id, hash, pageScope(request), request.principal!);
    });
  }

  /** `DELETE /api/v1/<kind>s/:id/pin`. */
  @Post('pins/:kind/:id/unpin')
  async unpin(
    @Req() request: Request,
    @Res() response: Response,
    @Param('kind') kind: string,
    @UuidParam() id: string,
  ): Promise<void> {
    const pinKind = kindOf(kind);
    await this.decide(request, response, pinKind, id, UNPINNED, () =>
      this.pins.unpin(pinKind, id, pageScope(request), request.principal!),
    );
  }

  /** Back to the entry's page, saying what came of it; a refusal (409, 422) as an error there. */
  private async decide(
    request: Request,
    response: Response,
    kind: PinKind,
    id: string,
    done: string,
    work: () => Promise<void>,
  ): Promise<void> {
    try {
      await work();
    } catch (error) {
      const errors = formErrors(error);
      if (!errors) throw error;
      const text = errors.fields.hash ?? errors.message;
      this.pages.refuse(request, response, entryPath(kind, id), errors, text);
      return;
    }
    this.pages.redirect(request, response, entryPath(kind, id), { kind: 'success', text: done });
  }
}

const APPROVED = 'Approved: the definition is pinned and served.';
const REJECTED = 'Rejected.';
const UNPINNED = 'Unpinned: changes upstream are now served as they come.';

function kindOf(kind: string): PinKind {
  if (!(PIN_KINDS as readonly string[]).includes(kind)) throw new NotFoundException();
  return kind as PinKind;
}

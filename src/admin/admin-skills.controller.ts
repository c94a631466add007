import { Get, Post, Query, Req, Res } from '@nestjs/common';
import { type Request, type Response } from 'express';
import { MinRole } from '../auth/auth.decorators';
import { UuidParam } from '../common/uuid-param';
import { GatewaysService } from '../gateways/gateways.service';
import { SkillListQueryDto, type SkillResponseDto } from '../skills/dto/skill.dto';
import { SkillsService } from '../skills/skills.service';
import { AdminCatalog } from './admin-catalog';
import { AdminController } from './admin-controller.decorator';
import { AdminPages } from './admin-pages.service';
import { submitForm } from './form-submission';
import { listFilter } from './list-filter';
import { hrefWith, offsetOf, PAGE_SIZE, pageNumber, pager } from './pagination';
import { pageGateway, pageScope } from './team-field';

/**
 * The skills (Skills extension) of the operator's teams' and global gateways: their manifests,
 * whether they are held, and the approval of a held one's manifest.
 */
@MinRole('operator')
@AdminController('admin/skills')
export class AdminSkillsController {
  constructor(
    private readonly skills: SkillsService,
    private readonly gateways: GatewaysService,
    private readonly catalog: AdminCatalog,
    private readonly pages: AdminPages,
  ) {}

  @Get()
  async list(
    @Req() request: Request,
    @Res() response: Response,
    @Query() query: Record<string, unknown>,
  ): Promise<void> {
    const filter = listFilter(query);
    const page = pageNumber(query.page);
    const submission = await submitForm(
      SkillListQueryDto,
      { ...filter.input, limit: PAGE_SIZE, offset: offsetOf(page) },
      {},
      (dto) => this.skills.list(dto, pageScope(request)),
    );
    const gateways = await this.catalog.gatewayNames(pageScope(request));
    await this.pages.render(
      request,
      response,
      'skills',
      {
        title: 'Skills',
        section: 'skills',
        skills: submission.ok ? submission.result.items.map(withFileCount) : [],
        filter: filter.values,
        filtered: filter.active,
        gateways: gateways.map((gateway) => ({
          ...gateway,
          selected: gateway.id === filter.values.gatewayId,
        })),
        pager: pager(page, submission.ok ? submission.result.total : 0, (n) =>
          hrefWith('/admin/skills', { ...filter.values, page: n }),
        ),
        errors: submission.ok ? {} : submission.errors.fields,
      },
      submission.ok ? 200 : submission.errors.status,
    );
  }

  @Get(':id')
  async detail(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const skill = await this.skills.get(id, pageScope(request));
    await this.pages.render(request, response, 'skill', {
      title: `Skill ${skill.name}`,
      section: 'skills',
      skill: withFileCount(skill),
      ...(await pageGateway(this.gateways, request, skill.gatewayId)),
    });
  }

  /** Approves the manifest listed now, as `POST /api/v1/skills/:id/approve`. */
  @Post(':id/approve')
  async approve(
    @Req() request: Request,
    @Res() response: Response,
    @UuidParam() id: string,
  ): Promise<void> {
    const skill = await this.skills.approve(id, pageScope(request));
    this.pages.redirect(request, response, `/admin/skills/${id}`, {
      kind: 'success',
      text: `Skill '${skill.name}' approved as its upstream lists it now.`,
    });
  }
}

function withFileCount(skill: SkillResponseDto) {
  return {
    ...skill,
    files: skill.resources === 'dynamic' ? 'dynamic' : skill.resources.length,
  };
}

import { Controller, Delete, Get, HttpCode } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiProperty,
  ApiTags,
} from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { UuidParam } from '../common/uuid-param';
import { ApprovalErrorCode, ApprovalException } from './approval.exception';
import { RememberedApprovals } from './remembered-approvals';

export class RememberedApprovalDto {
  @ApiProperty({ description: 'Remembered approval id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'Whose yes it is: the principal subject.' })
  subject!: string;

  @ApiProperty({ description: 'Their name when they said yes.' })
  username!: string;

  @ApiProperty({ description: 'The tool it lets through.', format: 'uuid' })
  toolId!: string;

  @ApiProperty({ format: 'uuid', description: 'The policy that asked.' })
  policyId!: string;

  @ApiProperty({ description: 'The policy’s name when the yes was given.' })
  policyName!: string;

  @ApiProperty({ description: 'When the user said yes.', format: 'date-time' })
  grantedAt!: string;

  @ApiProperty({ description: 'Until when it lets calls through.', format: 'date-time' })
  expiresAt!: string;
}

/** Admins only (no MinRole): a remembered yes lets calls through that a policy holds. */
@ApiTags('approvals')
@Controller('api/v1/approvals')
export class ApprovalsController {
  constructor(private readonly remembered: RememberedApprovals) {}

  @Get()
  @ApiOperation({
    summary: 'List remembered approvals',
    description:
      'Yeses that people asked to be remembered when a policy with the effect `approve` asked them; each lets that user call that tool under that policy without being asked until it expires.',
  })
  @ApiOkResponse({ type: [RememberedApprovalDto] })
  async list(): Promise<RememberedApprovalDto[]> {
    const grants = await this.remembered.list();
    return grants.map((grant) => ({
      id: grant.id,
      subject: grant.subject,
      username: grant.username,
      toolId: grant.toolId,
      policyId: grant.policyId,
      policyName: grant.policyName,
      grantedAt: grant.grantedAt.toISOString(),
      expiresAt: grant.expiresAt.toISOString(),
    }));
  }

  @Delete(':id')
  @HttpCode(204)
  @ApiOperation({
    summary: 'Revoke a remembered approval: its user is asked again, on every replica',
  })
  @ApiNoContentResponse({ description: 'Revoked.' })
  @ApiProblems(400, 404)
  async revoke(@UuidParam() id: string): Promise<void> {
    if (!(await this.remembered.revoke(id)))
      throw new ApprovalException(ApprovalErrorCode.NotFound, `No remembered approval ${id}.`);
  }
}

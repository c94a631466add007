import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiProblems } from '../common/api-problems.decorator';
import { PolicyDryRunDto, PolicyDryRunResultDto } from './dto/policy-dry-run.dto';
import { PolicyDryRun } from './policy-dry-run';

/** Admins only (no MinRole), as the policies themselves. */
@ApiTags('policies')
@Controller('api/v1/policies/dry-run')
export class PolicyDryRunController {
  constructor(private readonly dryRun: PolicyDryRun) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({
    summary:
      'What a user would see and be allowed to call, under the stored or a proposed set of policies',
    description:
      'Judges every tool of a scope (`serverId`, or `/mcp`) for a user (username or id, with their role and teams now) or a described principal. `policies` replaces the stored set for this dry run only; `arguments` judges a call with them at this time, else tools whose policies need the call are `call-dependent`. Nothing is saved. 400 `policy.invalid_expression` for a proposed policy that does not compile; 422 `policy.unknown_target` for an unknown user, server or tool.',
  })
  @ApiOkResponse({ type: PolicyDryRunResultDto })
  @ApiProblems(400, 422)
  run(@Body() dto: PolicyDryRunDto): Promise<PolicyDryRunResultDto> {
    return this.dryRun.run(dto);
  }
}

import { Body, Controller, Get, Put, Query, Res } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiProduces, ApiTags } from '@nestjs/swagger';
import { type Response } from 'express';
import { Public } from '../auth/auth.decorators';
import { ApiProblems } from '../common/api-problems.decorator';
import { configJsonSchema, parseConfigDocument } from './config-document';
import { ConfigService } from './config.service';
import {
  ConfigApplyQueryDto,
  ConfigApplyResponseDto,
  ConfigExportQueryDto,
} from './dto/config.dto';

/** The whole configuration as one document: admins only (the default of every route). */
@ApiTags('config')
@Controller('api/v1/config')
export class ConfigController {
  constructor(private readonly service: ConfigService) {}

  @Get()
  @ApiOperation({
    summary: 'Export the configuration as a document',
    description:
      'Teams, gateways and servers with their members. Credentials are never exported: each is a `fromEnv` reference to fill in.',
  })
  @ApiProduces('application/json', 'application/yaml')
  @ApiOkResponse({ description: 'The document.' })
  @ApiProblems(422)
  async export(@Query() query: ConfigExportQueryDto, @Res() response: Response): Promise<void> {
    if (query.format === 'yaml') {
      response.type('application/yaml').send(await this.service.exportYaml());
      return;
    }
    response.json(await this.service.export());
  }

  @Put()
  @ApiOperation({
    summary: 'Make the registry match a document',
    description:
      'Idempotent, and in one transaction: the document applies whole or not at all. Sections the document leaves out are not touched. Gateways it creates or reconnects are synced after the commit.',
  })
  @ApiBody({
    description: 'The document, as JSON (the CLI converts YAML).',
    schema: { type: 'object' },
  })
  @ApiOkResponse({ type: ConfigApplyResponseDto })
  @ApiProblems(400, 409, 413, 422)
  apply(
    @Body() body: Record<string, unknown>,
    @Query() query: ConfigApplyQueryDto,
  ): Promise<ConfigApplyResponseDto> {
    return this.service.apply(parseConfigDocument(body), {
      dryRun: query.dryRun ?? false,
      prune: query.prune ?? false,
    });
  }

  @Get('schema')
  @Public()
  @ApiOperation({
    summary: 'The JSON Schema of the configuration document',
    description: 'Public, so that editors can check a file against it.',
  })
  @ApiOkResponse({ description: 'A JSON Schema (draft 2020-12).' })
  schema(): Record<string, unknown> {
    return configJsonSchema();
  }
}

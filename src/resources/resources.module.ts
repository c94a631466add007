import { Module } from '@nestjs/common';
import { ResourceWriter } from './resource.writer';
import { ResourceTemplatesController } from './resource-templates.controller';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';
import { ServedResourcesQuery } from './served-resources.query';

@Module({
  controllers: [ResourcesController, ResourceTemplatesController],
  providers: [ResourceWriter, ResourcesService, ServedResourcesQuery],
  exports: [ResourceWriter, ResourcesService, ServedResourcesQuery],
})
export class ResourcesModule {}

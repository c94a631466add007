import { Module } from '@nestjs/common';
import { ResourceWriter } from './resource.writer';
import { ResourceTemplatesController } from './resource-templates.controller';
import { ResourcesController } from './resources.controller';
import { ResourcesService } from './resources.service';

@Module({
  controllers: [ResourcesController, ResourceTemplatesController],
  providers: [ResourceWriter, ResourcesService],
  exports: [ResourceWriter, ResourcesService],
})
export class ResourcesModule {}

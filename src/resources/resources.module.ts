import { Module } from '@nestjs/common';
import { ServedResourcesQuery } from './served-resources.query';
import { ResourceWriter } from './resource.writer';

@Module({
  providers: [ResourceWriter, ServedResourcesQuery],
  exports: [ResourceWriter, ServedResourcesQuery],
})
export class ResourcesModule {}

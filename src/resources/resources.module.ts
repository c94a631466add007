import { Module } from '@nestjs/common';
import { ResourceWriter } from './resource.writer';

@Module({
  providers: [ResourceWriter],
  exports: [ResourceWriter],
})
export class ResourcesModule {}

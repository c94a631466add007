import { Module } from '@nestjs/common';
import { SkillsApplier } from './skills.applier';
import { SkillsController } from './skills.controller';
import { SkillsService } from './skills.service';

@Module({
  controllers: [SkillsController],
  providers: [SkillsApplier, SkillsService],
  exports: [SkillsApplier, SkillsService],
})
export class SkillsModule {}

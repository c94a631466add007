import { type DynamicModule, Global, Module } from '@nestjs/common';
import { SETTINGS_SLICES, type Settings } from './settings';

/** Provides each settings slice under its own class, for the modules that read it. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: Settings): DynamicModule {
    return {
      module: ConfigModule,
      providers: SETTINGS_SLICES.map((slice) => ({ provide: slice, useValue: settings })),
      exports: [...SETTINGS_SLICES],
    };
  }
}

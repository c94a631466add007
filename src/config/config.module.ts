import { type DynamicModule, Global, Module } from '@nestjs/common';
import { SETTINGS_SLICES, type Settings, sliceOf } from './settings';

/** Provides each settings slice under its own class, holding that slice's values alone. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(settings: Settings): DynamicModule {
    const slices = [...SETTINGS_SLICES];
    return {
      module: ConfigModule,
      providers: slices.map(([slice, names]) => ({
        provide: slice,
        useValue: sliceOf(settings, names),
      })),
      exports: slices.map(([slice]) => slice),
    };
  }
}

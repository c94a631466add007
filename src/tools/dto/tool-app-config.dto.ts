import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  ArrayMaxSize,
  buildMessage,
  IsArray,
  IsBoolean,
  ValidateBy,
  type ValidationOptions,
} from 'class-validator';
import {
  type CspDomainList,
  isAllowedAppOrigin,
  type ToolAppConfig,
  type UiPermission,
} from '../tool-app-config';
import { NestedObject, Optional } from '../../common/validation';

const ORIGINS_PER_LIST = 64;

function IsAppOrigin(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isAppOrigin',
      validator: {
        validate: (value: unknown): boolean =>
          typeof value === 'string' && isAllowedAppOrigin(value),
        defaultMessage: buildMessage(
          (each) =>
            `${each}$property must hold origins such as https://cdn.example.com or http://localhost:5173: https (or http on localhost), no wildcard, path or trailing slash`,
          options,
        ),
      },
    },
    options,
  );
}

function IsEmptyObject(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isEmptyObject',
      validator: {
        validate: (value: unknown): boolean =>
          typeof value === 'object' &&
          value !== null &&
          !Array.isArray(value) &&
          Object.keys(value).length === 0,
        defaultMessage: buildMessage(
          (each) => `${each}$property must be {} to ask for the permission`,
          options,
        ),
      },
    },
    options,
  );
}

function originList(directive: string, example: string) {
  return ApiPropertyOptional({
    description: `Origins added to the resource's \`${directive}\`, after the upstream's own. Only https origins, or http://localhost; no wildcards.`,
    type: [String],
    maxItems: ORIGINS_PER_LIST,
    example: [example],
  });
}

/** Extra CSP origins for a tool's UI resource (`_meta.ui.csp`). */
export class ToolAppCspDto implements Partial<Record<CspDomainList, string[]>> {
  @originList('connectDomains (connect-src: fetch, XHR, WebSocket)', 'https://api.example.com')
  @Optional()
  @IsArray()
  @ArrayMaxSize(ORIGINS_PER_LIST)
  @IsAppOrigin({ each: true })
  connectDomains?: string[];

  @originList('resourceDomains (scripts, styles, images, fonts, media)', 'https://cdn.example.com')
  @Optional()
  @IsArray()
  @ArrayMaxSize(ORIGINS_PER_LIST)
  @IsAppOrigin({ each: true })
  resourceDomains?: string[];

  @originList('frameDomains (frame-src: nested iframes)', 'https://www.youtube.com')
  @Optional()
  @IsArray()
  @ArrayMaxSize(ORIGINS_PER_LIST)
  @IsAppOrigin({ each: true })
  frameDomains?: string[];

  @originList('baseUriDomains (base-uri)', 'https://cdn.example.com')
  @Optional()
  @IsArray()
  @ArrayMaxSize(ORIGINS_PER_LIST)
  @IsAppOrigin({ each: true })
  baseUriDomains?: string[];
}

function permission(feature: string) {
  return ApiPropertyOptional({
    description: `Ask the host for the \`${feature}\` permission (the iframe's allow attribute); the value is {}.`,
    type: 'object',
    properties: {},
    additionalProperties: false,
    example: {},
  });
}

/** Browser permissions a tool's UI asks its host for (`_meta.ui.permissions`). */
export class ToolAppPermissionsDto implements Partial<Record<UiPermission, Record<string, never>>> {
  @permission('camera')
  @Optional()
  @IsEmptyObject()
  camera?: Record<string, never>;

  @permission('microphone')
  @Optional()
  @IsEmptyObject()
  microphone?: Record<string, never>;

  @permission('geolocation')
  @Optional()
  @IsEmptyObject()
  geolocation?: Record<string, never>;

  @permission('clipboard-write')
  @Optional()
  @IsEmptyObject()
  clipboardWrite?: Record<string, never>;
}

/** MCP Apps settings an operator sets on a tool. */
export class ToolAppConfigDto implements ToolAppConfig {
  @ApiPropertyOptional({
    description:
      'Serve Portico’s bundled Prefab renderer as this tool’s UI (it draws the structuredContent of results as tables and cards), instead of the upstream’s own UI if it has one.',
  })
  @Optional()
  @IsBoolean()
  prefab?: boolean;

  @ApiPropertyOptional({
    description:
      'CSP origins merged into the tool’s UI resource after those the upstream declares, in order and without duplicates.',
    type: ToolAppCspDto,
  })
  @Optional()
  @NestedObject(() => ToolAppCspDto)
  csp?: ToolAppCspDto;

  @ApiPropertyOptional({
    description: 'Browser permissions added to those the upstream’s UI resource asks for.',
    type: ToolAppPermissionsDto,
  })
  @Optional()
  @NestedObject(() => ToolAppPermissionsDto)
  permissions?: ToolAppPermissionsDto;

  @ApiPropertyOptional({
    description:
      'Whether the UI prefers a visible border and background from the host; overrides the upstream’s preference.',
  })
  @Optional()
  @IsBoolean()
  prefersBorder?: boolean;
}

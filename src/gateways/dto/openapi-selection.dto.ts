import { ApiPropertyOptional } from '@nestjs/swagger';
import { ArrayMaxSize, IsArray, IsIn, IsString, MaxLength } from 'class-validator';
import { Optional } from '../../common/validation';
import {
  HTTP_METHODS,
  type HttpMethod,
  type OpenApiSelection,
  SELECTION_ENTRY_MAX,
  SELECTION_LIST_MAX,
} from '../../upstream/openapi/openapi-selection';

function list(description: string, example: string[]): PropertyDecorator {
  return (target, key) => {
    ApiPropertyOptional({ description, type: [String], example })(target, key);
    Optional()(target, key);
    IsArray()(target, key);
    ArrayMaxSize(SELECTION_LIST_MAX)(target, key);
    IsString({ each: true })(target, key);
    MaxLength(SELECTION_ENTRY_MAX, { each: true })(target, key);
  };
}

/** Which operations of an OpenAPI description become tools. */
export class OpenApiSelectionDto implements OpenApiSelection {
  @ApiPropertyOptional({
    description:
      'The HTTP methods whose operations become tools; GET and HEAD by default (read-only). Add POST, PUT, PATCH or DELETE to opt into writes.',
    enum: HTTP_METHODS,
    isArray: true,
    example: ['GET', 'HEAD'],
  })
  @Optional()
  @IsArray()
  @ArrayMaxSize(HTTP_METHODS.length)
  @IsIn(HTTP_METHODS, { each: true })
  methods?: HttpMethod[];

  @list('Only operations with one of these tags (all when absent).', ['pets'])
  includeTags?: string[];

  @list('Never operations with one of these tags.', ['admin'])
  excludeTags?: string[];

  @list(
    'Only operations whose path matches one of these globs (`*` within a segment, `**` across).',
    ['/pets/**'],
  )
  includePaths?: string[];

  @list('Never operations whose path matches one of these globs.', ['/admin/**'])
  excludePaths?: string[];
}

import { ApiProperty } from '@nestjs/swagger';
import { PinStateDto } from '../../pin-state/pin-state.dto';

/** What resources and resource templates share in every response. */
abstract class ResourceEntryResponseDto {
  @ApiProperty({ description: 'Id.', format: 'uuid' })
  id!: string;

  @ApiProperty({ description: 'The upstream’s name for it (untrusted text).' })
  name!: string;

  @ApiProperty({ description: 'Upstream display title.', nullable: true, type: String })
  title!: string | null;

  @ApiProperty({ description: 'Upstream description (untrusted text).' })
  description!: string;

  @ApiProperty({ description: 'MIME type the upstream declares.', nullable: true, type: String })
  mimeType!: string | null;

  @ApiProperty({
    description: 'Upstream annotations (audience, priority, lastModified).',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  annotations!: Record<string, unknown> | null;

  @ApiProperty({
    description: 'Upstream `_meta`.',
    nullable: true,
    type: 'object',
    additionalProperties: true,
  })
  meta!: Record<string, unknown> | null;

  @ApiProperty({ description: 'Id of the gateway that supplies it.', format: 'uuid' })
  gatewayId!: string;

  @ApiProperty({ description: 'Slug of that gateway.' })
  gatewaySlug!: string;

  @ApiProperty({ description: 'Whether it is served.' })
  enabled!: boolean;

  @ApiProperty({ description: 'When it was first stored.', format: 'date-time' })
  createdAt!: string;

  @ApiProperty({ description: 'Last change.', format: 'date-time' })
  updatedAt!: string;
}

export class ResourceResponseDto extends ResourceEntryResponseDto {
  @ApiProperty({
    description:
      'URI on prefixed servers and `/mcp`: the gateway slug, `+`, and the upstream URI. Servers with naming `original` show `originalUri`.',
    example: 'docs+file:///guide.md',
  })
  uri!: string;

  @ApiProperty({ description: 'The upstream’s own URI, used when reading it.' })
  originalUri!: string;

  @ApiProperty({
    description: 'Size in bytes, if the upstream says.',
    nullable: true,
    type: Number,
  })
  size!: number | null;
}

export class ResourcePageDto {
  @ApiProperty({ description: 'This page of resources.', type: [ResourceResponseDto] })
  items!: ResourceResponseDto[];

  @ApiProperty({ description: 'Number of matching resources in all pages.' })
  total!: number;
}

export class ResourceTemplateResponseDto extends ResourceEntryResponseDto {
  @ApiProperty({
    description:
      'RFC 6570 template on prefixed servers and `/mcp`: the gateway slug, `+`, and the upstream template. Servers with naming `original` show `originalUriTemplate`.',
    example: 'docs+file:///{path}',
  })
  uriTemplate!: string;

  @ApiProperty({ description: 'The upstream’s own template.' })
  originalUriTemplate!: string;

  @ApiProperty({
    description:
      'The pin of its definition: approved hash, current hash, and whether it is held back (not served) until an operator decides.',
    type: PinStateDto,
  })
  pin!: PinStateDto;
}

export class ResourceTemplatePageDto {
  @ApiProperty({
    description: 'This page of resource templates.',
    type: [ResourceTemplateResponseDto],
  })
  items!: ResourceTemplateResponseDto[];

  @ApiProperty({ description: 'Number of matching resource templates in all pages.' })
  total!: number;
}

import {
  type ResourceResponseDto,
  type ResourceTemplateResponseDto,
} from './dto/resource-response.dto';
import { pinStateOf } from '../pin-state/pin-response';
import { virtualUri } from './resource-uri';
import { type ResourceTemplate } from './resource-template.entity';
import { type Resource } from './resource.entity';

/** The one mapping from a stored resource to what any API shows of it. */
export function resourceResponse(resource: Resource): ResourceResponseDto {
  return {
    ...common(resource),
    uri: virtualUri(resource.gatewaySlug, resource.uri),
    originalUri: resource.uri,
    size: resource.size === null ? null : Number(resource.size),
  };
}

/** The one mapping from a stored resource template to what any API shows of it. */
export function resourceTemplateResponse(template: ResourceTemplate): ResourceTemplateResponseDto {
  return {
    ...common(template),
    uriTemplate: virtualUri(template.gatewaySlug, template.uriTemplate),
    originalUriTemplate: template.uriTemplate,
    pin: pinStateOf(template),
  };
}

function common(entry: Resource | ResourceTemplate) {
  return {
    id: entry.id,
    name: entry.name,
    title: entry.title,
    description: entry.description,
    mimeType: entry.mimeType,
    annotations: entry.annotations,
    meta: entry.meta,
    gatewayId: entry.gatewayId,
    gatewaySlug: entry.gatewaySlug,
    enabled: entry.enabled,
    createdAt: entry.createdAt.toISOString(),
    updatedAt: entry.updatedAt.toISOString(),
  };
}

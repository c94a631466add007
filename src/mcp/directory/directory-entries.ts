import { type Prompt } from '../../prompts/prompt.entity';
import { type ResourceTemplate } from '../../resources/resource-template.entity';
import { virtualUri } from '../../resources/resource-uri';
import { type Resource } from '../../resources/resource.entity';
import { type ToolOverrideValues } from '../../servers/tool-override';
import { type DirectoryPrompt } from './prompt-directory';
import { type DirectoryResource, type DirectoryTemplate } from './resource-directory';

/** How a scope names its members: the gateway-wide endpoint always prefixes. */
export interface Naming {
  original: boolean;
  /** The server's overrides, by tool id. */
  overrides: ReadonlyMap<string, ToolOverrideValues>;
  /** `gateway_slug + SEP + original_name`. */
  virtualName(gatewaySlug: string, originalName: string): string;
}

/** A resource as the scope names it: under its virtual URI, or the upstream's. */
export function directoryResource(resource: Resource, naming: Naming): DirectoryResource {
  const uri = naming.original ? resource.uri : virtualUri(resource.gatewaySlug, resource.uri);
  return {
    uri,
    gatewayId: resource.gatewayId,
    gatewaySlug: resource.gatewaySlug,
    upstreamUri: resource.uri,
    definition: {
      uri,
      name: resource.name,
      ...(resource.title === null ? {} : { title: resource.title }),
      ...(resource.description ? { description: resource.description } : {}),
      ...(resource.mimeType === null ? {} : { mimeType: resource.mimeType }),
      ...(resource.size === null ? {} : { size: Number(resource.size) }),
      ...(resource.annotations === null ? {} : { annotations: resource.annotations }),
      ...(resource.meta === null ? {} : { _meta: resource.meta }),
    },
  };
}

/** A resource template as the scope names it. */
export function directoryTemplate(template: ResourceTemplate, naming: Naming): DirectoryTemplate {
  const uriTemplate = naming.original
    ? template.uriTemplate
    : virtualUri(template.gatewaySlug, template.uriTemplate);
  return {
    uriTemplate,
    upstreamTemplate: template.uriTemplate,
    gatewayId: template.gatewayId,
    gatewaySlug: template.gatewaySlug,
    definition: {
      uriTemplate,
      name: template.name,
      ...(template.title === null ? {} : { title: template.title }),
      ...(template.description ? { description: template.description } : {}),
      ...(template.mimeType === null ? {} : { mimeType: template.mimeType }),
      ...(template.annotations === null ? {} : { annotations: template.annotations }),
      ...(template.meta === null ? {} : { _meta: template.meta }),
    },
  };
}

/** A prompt as the scope names it: virtual, or the upstream's name. */
export function directoryPrompt(prompt: Prompt, naming: Naming): DirectoryPrompt {
  const name = naming.original
    ? prompt.originalName
    : naming.virtualName(prompt.gatewaySlug, prompt.originalName);
  return {
    name,
    gatewayId: prompt.gatewayId,
    gatewaySlug: prompt.gatewaySlug,
    originalName: prompt.originalName,
    definition: {
      name,
      ...(prompt.title === null ? {} : { title: prompt.title }),
      ...(prompt.description ? { description: prompt.description } : {}),
      ...(prompt.arguments.length > 0 ? { arguments: prompt.arguments } : {}),
      ...(prompt.meta === null ? {} : { _meta: prompt.meta }),
    },
  };
}

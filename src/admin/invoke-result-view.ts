import { trimmedOf } from '../common/untrusted-text';
import { type CallToolResult, type ContentBlock } from '@modelcontextprotocol/server';
import { prettyJson } from './view-helpers';

export interface ContentBlockView {
  kind: string;
  /** Text to show as is (escaped by the template): text blocks and embedded text resources. */
  text: string | null;
  /** One line about what is not shown inline, such as "image/png, 1,204 bytes". */
  summary: string | null;
}

export interface InvokeResultView {
  isError: boolean;
  blocks: ContentBlockView[];
  structured: string | null;
  /** The whole CallToolResult as indented JSON. */
  raw: string;
}

function base64Bytes(data: string): number {
  return Math.floor((trimmedOf(data, '=').length * 3) / 4);
}

function blockView(block: ContentBlock): ContentBlockView {
  switch (block.type) {
    case 'text':
      return { kind: 'Text', text: block.text, summary: null };
    case 'image':
      return {
        kind: 'Image',
        text: null,
        summary: `${block.mimeType}, ${base64Bytes(block.data).toLocaleString('en')} bytes`,
      };
    case 'audio':
      return {
        kind: 'Audio',
        text: null,
        summary: `${block.mimeType}, ${base64Bytes(block.data).toLocaleString('en')} bytes`,
      };
    case 'resource_link':
      return { kind: 'Resource link', text: null, summary: `${block.name}: ${block.uri}` };
    case 'resource': {
      const { resource } = block;
      return 'text' in resource
        ? { kind: 'Resource', text: resource.text, summary: resource.uri }
        : {
            kind: 'Resource',
            text: null,
            summary: `${resource.uri} (${resource.mimeType ?? 'binary'}, ${base64Bytes(resource.blob).toLocaleString('en')} bytes)`,
          };
    }
  }
}

/**
 * A CallToolResult as the tool page shows it: text blocks as text, binary blocks summarised
 * (upstream data is never rendered as markup or media), structured content and the raw JSON.
 */
export function invokeResultView(result: CallToolResult): InvokeResultView {
  return {
    isError: result.isError === true,
    blocks: (result.content ?? []).map(blockView),
    structured:
      result.structuredContent === undefined ? null : prettyJson(result.structuredContent),
    raw: prettyJson(result),
  };
}

import { type CallToolResult } from '@modelcontextprotocol/client';
import { type Dispatcher } from 'undici';
import { isJsonObject, nestingDepth } from '../../common/json-value';

/** How much of a failed response's body an error result carries. */
export const ERROR_BODY_SHOWN = 2048;

function isJsonType(type: string): boolean {
  return /^application\/(.+\+)?json\b/i.test(type);
}

/**
 * A response as a tool result: a JSON object is the `structuredContent` (anything else JSON is
 * wrapped as `{ "result": ... }`), and the body is the text content. A 4xx or 5xx, a redirect
 * (never followed) and a body past the size limit are errors that say so.
 */
export function shapeResponse(
  response: Dispatcher.ResponseData,
  text: string,
  truncated: boolean,
  maxDepth: number,
): CallToolResult {
  const status = response.statusCode;
  const type = String(response.headers['content-type'] ?? '');
  if (status >= 300) {
    const where =
      status < 400 && response.headers.location
        ? ` to ${String(response.headers.location).slice(0, 500)} (Portico does not follow redirects)`
        : '';
    const shown = text.length > ERROR_BODY_SHOWN ? `${text.slice(0, ERROR_BODY_SHOWN)}…` : text;
    return errorResult(`HTTP ${status}${where}${shown ? `: ${shown}` : ''}`);
  }
  if (truncated)
    return errorResult(
      'the response body is larger than the limit (UPSTREAM_MESSAGE_LIMIT_BYTES); it was not read to its end',
    );
  if (text === '') return { content: [{ type: 'text', text: `HTTP ${status}, no body` }] };
  if (!isJsonType(type)) return { content: [{ type: 'text', text }] };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { content: [{ type: 'text', text }] };
  }
  if (nestingDepth(value, maxDepth) > maxDepth)
    return errorResult(`the response nests more than ${maxDepth} levels deep (JSON_MAX_DEPTH)`);
  const structured = isJsonObject(value) ? value : { result: value };
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** A tool result that is an error, saying `text`. */
export function errorResult(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] };
}

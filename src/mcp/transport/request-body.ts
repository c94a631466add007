import { type Request } from 'express';
import { McpRefusal } from '../mcp-errors';

/** JSON-RPC's parse error: the body is not JSON. */
const PARSE_ERROR = -32700;

/**
 * The JSON body of an MCP POST, read here rather than by the app's body parser, so that every
 * refusal is a JSON-RPC error: 413 past the limit, 415 for an encoding Portico does not decode
 * (a lying `Content-Encoding` included), 400 for what is not JSON.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity')
    throw new McpRefusal(415, `Content-Encoding '${encoding}' is not supported`);
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit)
    throw new McpRefusal(413, 'The request body is too large');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new McpRefusal(413, 'The request body is too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    throw new McpRefusal(400, 'Parse error: the body is not valid JSON', PARSE_ERROR);
  }
}

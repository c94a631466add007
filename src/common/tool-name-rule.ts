import { applyDecorators } from '@nestjs/common';
import { Matches, NotEquals } from 'class-validator';

/** The MCP tool-name rule, which prompt names and configured tool names follow too. */
export const TOOL_NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;
export const TOOL_NAME_MAX_LENGTH = 128;

/** Common clients reject longer names; the admin pages flag them. */
export const CLIENT_TOOL_NAME_LIMIT = 64;

/** The name of Portico's own tool-search tool, which no tool a server lists may take. */
export const TOOL_SEARCH_NAME = 'tool_search';

/**
 * A tool name an operator gives (an override's, a consolidated tool's): the MCP rule, and not
 * `tool_search`, which a server with tool search answers itself (a tool so named was silently
 * never listed nor called there).
 */
export function ExposedToolName(): PropertyDecorator {
  return applyDecorators(
    Matches(TOOL_NAME_RULE, {
      message: 'name must follow the MCP tool-name rule ^[A-Za-z0-9_.-]{1,128}$',
    }),
    NotEquals(TOOL_SEARCH_NAME, {
      message: `name may not be ${TOOL_SEARCH_NAME}, tool search's own`,
    }),
  );
}

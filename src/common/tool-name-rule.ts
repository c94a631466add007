/** The MCP tool-name rule, which prompt names and configured tool names follow too. */
export const TOOL_NAME_RULE = /^[A-Za-z0-9_.-]{1,128}$/;
export const TOOL_NAME_MAX_LENGTH = 128;

/** Common clients reject longer names; the admin pages flag them. */
export const CLIENT_TOOL_NAME_LIMIT = 64;

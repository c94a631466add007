export function virtualToolName(
  gatewaySlug: string,
  separator: string,
  originalName: string,
): string {
  return `${gatewaySlug}${separator}${originalName}`;
}

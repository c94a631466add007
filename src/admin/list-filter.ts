/** The gateway and text filter of a list page, from its query string. */
export interface ListFilter {
  /** As typed, for the form and for links to other pages. */
  values: { gatewayId: string; q: string };
  /** What the REST list query receives: empty fields left out, text trimmed. */
  input: { gatewayId?: string; q?: string };
  active: boolean;
}

export function listFilter(query: Record<string, unknown>): ListFilter {
  const gatewayId = typeof query.gatewayId === 'string' ? query.gatewayId : '';
  const q = typeof query.q === 'string' ? query.q : '';
  return {
    values: { gatewayId, q },
    input: { ...(gatewayId ? { gatewayId } : {}), ...(q.trim() ? { q: q.trim() } : {}) },
    active: Boolean(gatewayId || q),
  };
}

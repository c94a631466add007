import { type ServerCapabilities } from '@modelcontextprotocol/server';
import { LISTS, type ListKind } from '../directory/scope-directory';

/** What a `subscriptions/listen` asks for (`params.notifications`), as Portico honours it. */
export interface ListenFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
}

/** The most resource URIs one listen follows; the acknowledgement names those it does. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 100;
/** Longer URIs are not followed: no resource Portico serves has one. */
const MAX_URI_LENGTH = 2048;

const FLAG: Record<ListKind, 'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * The part of a requested filter Portico honours, which the acknowledgement echoes: the list
 * flags set to true, and the first MAX_RESOURCE_SUBSCRIPTIONS distinct URIs. Anything else in the
 * request (unknown fields, wrong types) is left out rather than refused.
 */
export function honouredFilter(requested: unknown): ListenFilter {
  const asked = typeof requested === 'object' && requested !== null ? requested : {};
  const filter: ListenFilter = {};
  for (const flag of Object.values(FLAG))
    if ((asked as Record<string, unknown>)[flag] === true) filter[flag] = true;
  const uris = (asked as Record<string, unknown>).resourceSubscriptions;
  if (Array.isArray(uris)) {
    const kept = new Set<string>();
    for (const uri of uris) {
      if (kept.size >= MAX_RESOURCE_SUBSCRIPTIONS) break;
      if (typeof uri === 'string' && uri.length > 0 && uri.length <= MAX_URI_LENGTH) kept.add(uri);
    }
    if (kept.size > 0) filter.resourceSubscriptions = [...kept];
  }
  return filter;
}

/** Whether the filter asked to hear that this list changed. */
export function asksFor(filter: ListenFilter, kind: ListKind): boolean {
  return filter[FLAG[kind]] === true;
}

/**
 * What a 2025 session hears of on its stream: each list whose `listChanged` the server's
 * capabilities advertise (it asks for nothing itself).
 */
export function advertisedFilter(capabilities: ServerCapabilities): ListenFilter {
  const filter: ListenFilter = {};
  for (const kind of LISTS) if (capabilities[kind]?.listChanged === true) filter[FLAG[kind]] = true;
  return filter;
}

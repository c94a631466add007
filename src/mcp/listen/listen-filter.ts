import { type ServerCapabilities } from '@modelcontextprotocol/server';
import { isJsonObject } from '../../common/json-value';
import { UPSTREAM_LISTS, type UpstreamList } from '../../events/event-bus';
import { MAX_SEALED_CHARS } from '../tasks/task-id-seal';

/** What a `subscriptions/listen` asks for (`params.notifications`), as Portico honours it. */
export interface ListenFilter {
  toolsListChanged?: true;
  promptsListChanged?: true;
  resourcesListChanged?: true;
  resourceSubscriptions?: string[];
  /** Tasks (Tasks extension) whose status the listen hears of, by the ids Portico handed out. */
  taskIds?: string[];
}

/** The most resource URIs one listen follows; the acknowledgement names those it does. */
export const MAX_RESOURCE_SUBSCRIPTIONS = 100;
/** Longer URIs are not followed: no resource Portico serves has one. */
const MAX_URI_LENGTH = 2048;
/** The most tasks one listen follows; the acknowledgement names those it does. */
export const MAX_TASK_IDS = 100;

const FLAG: Record<
  UpstreamList,
  'toolsListChanged' | 'promptsListChanged' | 'resourcesListChanged'
> = {
  tools: 'toolsListChanged',
  prompts: 'promptsListChanged',
  resources: 'resourcesListChanged',
};

/**
 * Why a listen's `params.notifications` is no filter, as the SDK's SubscriptionFilterSchema judges
 * it (with the Tasks extension's `taskIds`): it is required, an object, its flags booleans and its
 * lists lists of strings. Null for a filter; unknown fields are left to honouredFilter to drop.
 */
export function filterRefusal(requested: unknown): string | null {
  if (!isJsonObject(requested))
    return "Invalid params: 'notifications' is required and must be a subscription filter (an object)";
  for (const flag of Object.values(FLAG))
    if (requested[flag] !== undefined && typeof requested[flag] !== 'boolean')
      return `Invalid params: notifications.${flag} must be a boolean`;
  for (const list of ['resourceSubscriptions', 'taskIds']) {
    const values = requested[list];
    if (values === undefined) continue;
    if (!Array.isArray(values) || values.some((value) => typeof value !== 'string'))
      return `Invalid params: notifications.${list} must be a list of strings`;
  }
  return null;
}

/**
 * The part of a valid filter Portico honours, which the acknowledgement echoes: the list flags set
 * to true, the first MAX_RESOURCE_SUBSCRIPTIONS distinct URIs and MAX_TASK_IDS task ids (empty or
 * longer ones are not followed). Unknown fields are left out.
 */
export function honouredFilter(requested: unknown): ListenFilter {
  const asked = typeof requested === 'object' && requested !== null ? requested : {};
  const filter: ListenFilter = {};
  for (const flag of Object.values(FLAG))
    if ((asked as Record<string, unknown>)[flag] === true) filter[flag] = true;
  const uris = strings(asked, 'resourceSubscriptions', MAX_RESOURCE_SUBSCRIPTIONS, MAX_URI_LENGTH);
  if (uris) filter.resourceSubscriptions = uris;
  const taskIds = strings(asked, 'taskIds', MAX_TASK_IDS, MAX_SEALED_CHARS);
  if (taskIds) filter.taskIds = taskIds;
  return filter;
}

/** The first `most` distinct non-empty strings of `asked[field]` no longer than `longest`. */
function strings(asked: object, field: string, most: number, longest: number) {
  const values = (asked as Record<string, unknown>)[field];
  if (!Array.isArray(values)) return undefined;
  const kept = new Set<string>();
  for (const value of values) {
    if (kept.size >= most) break;
    if (typeof value === 'string' && value.length > 0 && value.length <= longest) kept.add(value);
  }
  return kept.size > 0 ? [...kept] : undefined;
}

/** Whether the filter asked to hear that this list changed. */
export function asksFor(filter: ListenFilter, kind: UpstreamList): boolean {
  return filter[FLAG[kind]] === true;
}

/**
 * What a 2025 session hears of on its stream: each list whose `listChanged` the server's
 * capabilities advertise (it asks for nothing itself).
 */
export function advertisedFilter(capabilities: ServerCapabilities): ListenFilter {
  const filter: ListenFilter = {};
  for (const kind of UPSTREAM_LISTS)
    if (capabilities[kind]?.listChanged === true) filter[FLAG[kind]] = true;
  return filter;
}

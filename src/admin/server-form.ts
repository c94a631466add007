import { type ServerResponseDto } from '../servers/dto/server-response.dto';
import { type FormBody, formCheckbox, formField, formFields, formLines } from './form-body';
import { PICKER_KINDS, type PickerKindName } from './member-picker';

export interface ServerFormValues {
  name: string;
  description: string;
  enabled: boolean;
  /** 'prefixed' or 'original'; empty when the post had no such field. */
  naming: string;
  /** 'any', '2025' or '2026-07-28'; empty when the post had no such field. */
  clientEras: string;
  toolSearchEnabled: boolean;
  /** Virtual names, one per line. */
  alwaysLoaded: string;
  toolIds: string[];
  resourceIds: string[];
  resourceTemplateIds: string[];
  promptIds: string[];
  /** The team chosen on a submitted form ('' for global); absent before one was submitted. */
  teamId?: string;
}

/** The choices of the naming select. */
export const NAMING_OPTIONS = [
  {
    value: 'prefixed',
    label: 'Prefixed: gateway-slug-name, slug+URI (members never clash)',
  },
  {
    value: 'original',
    label: 'Original: the upstreams’ own names and URIs (two members may not share one)',
  },
];

/** The choices of the client eras select. */
export const CLIENT_ERA_OPTIONS = [
  { value: 'any', label: 'Clients of both eras' },
  { value: '2025', label: 'Only 2025 sessions (2026-07-28 clients are refused)' },
  { value: '2026-07-28', label: 'Only 2026-07-28 clients (2025 sessions are refused)' },
];

/** DTO paths that the form shows under other names. */
export const SERVER_FIELD_ALIASES: Record<string, string> = {
  toolSearch: 'toolSearchEnabled',
  'toolSearch.enabled': 'toolSearchEnabled',
  'toolSearch.alwaysLoaded': 'alwaysLoaded',
};

export function emptyServerForm(): ServerFormValues {
  return {
    name: '',
    description: '',
    enabled: true,
    naming: 'prefixed',
    clientEras: 'any',
    toolSearchEnabled: false,
    alwaysLoaded: '',
    toolIds: [],
    resourceIds: [],
    resourceTemplateIds: [],
    promptIds: [],
  };
}

export function serverFormValues(body: FormBody): ServerFormValues {
  const ids = (name: string) => [...new Set(formFields(body, name))];
  return {
    name: formField(body, 'name'),
    description: formField(body, 'description'),
    enabled: formCheckbox(body, 'enabled'),
    naming: formField(body, 'naming'),
    clientEras: formField(body, 'clientEras'),
    toolSearchEnabled: formCheckbox(body, 'toolSearchEnabled'),
    alwaysLoaded: formLines(body, 'alwaysLoaded').join('\n'),
    toolIds: ids('toolIds'),
    resourceIds: ids('resourceIds'),
    resourceTemplateIds: ids('resourceTemplateIds'),
    promptIds: ids('promptIds'),
    ...(body.teamId === undefined ? {} : { teamId: formField(body, 'teamId') }),
  };
}

export function serverFormOf(server: ServerResponseDto): ServerFormValues {
  return {
    name: server.name,
    description: server.description,
    enabled: server.enabled,
    naming: server.naming,
    clientEras: server.clientEras,
    toolSearchEnabled: server.toolSearch.enabled,
    alwaysLoaded: server.toolSearch.alwaysLoaded.join('\n'),
    toolIds: server.toolIds,
    resourceIds: server.resourceIds,
    resourceTemplateIds: server.resourceTemplateIds,
    promptIds: server.promptIds,
  };
}

/** The longest picker search the form runs; longer text is cut. */
export const PICKER_QUERY_MAX = 200;

/** One picker's search as the form runs it: trimmed and cut to length. */
export function pickerQuery(body: FormBody, kind: PickerKindName = 'tools'): string {
  return formField(body, PICKER_KINDS[kind].queryField).trim().slice(0, PICKER_QUERY_MAX);
}

/** Every picker's search. */
export function pickerQueries(body: FormBody): Record<PickerKindName, string> {
  return {
    tools: pickerQuery(body, 'tools'),
    resources: pickerQuery(body, 'resources'),
    resourceTemplates: pickerQuery(body, 'resourceTemplates'),
    prompts: pickerQuery(body, 'prompts'),
  };
}

/**
 * What a post of the server form asks for. A picker's Search button says 'search'. Enter in a
 * text field presses the form's first submit button, a hidden one that says 'enter': that saves,
 * unless a search box holds a query that has not been run yet, which is what Enter in a search
 * box leaves behind. The visible Save button always saves.
 */
export function serverFormIntent(body: FormBody): 'save' | 'search' {
  const intent = formField(body, 'intent');
  if (intent === 'search') return 'search';
  const unrun = (Object.keys(PICKER_KINDS) as PickerKindName[]).some(
    (kind) => pickerQuery(body, kind) !== formField(body, PICKER_KINDS[kind].shownQueryField),
  );
  if (intent === 'enter' && unrun) return 'search';
  return 'save';
}

/**
 * The request body the REST API would receive for this form; each id list replaces that kind of
 * member. A post without a naming field leaves the naming as it is (or the default).
 */
export function serverInput(values: ServerFormValues): Record<string, unknown> {
  return {
    name: values.name.trim(),
    description: values.description,
    enabled: values.enabled,
    ...(values.naming === '' ? {} : { naming: values.naming }),
    ...(values.clientEras === '' ? {} : { clientEras: values.clientEras }),
    toolIds: values.toolIds,
    resourceIds: values.resourceIds,
    resourceTemplateIds: values.resourceTemplateIds,
    promptIds: values.promptIds,
    toolSearch: {
      enabled: values.toolSearchEnabled,
      alwaysLoaded: values.alwaysLoaded.split('\n').filter((line) => line !== ''),
    },
  };
}

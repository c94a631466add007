import { type ServerResponseDto } from '../servers/dto/server-response.dto';
import { type FormBody, formCheckbox, formField, formFields, formLines } from './form-body';

export interface ServerFormValues {
  name: string;
  description: string;
  enabled: boolean;
  toolSearchEnabled: boolean;
  /** Virtual names, one per line. */
  alwaysLoaded: string;
  toolIds: string[];
  /** The team chosen on a submitted form ('' for global); absent before one was submitted. */
  teamId?: string;
}

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
    toolSearchEnabled: false,
    alwaysLoaded: '',
    toolIds: [],
  };
}

export function serverFormValues(body: FormBody): ServerFormValues {
  return {
    name: formField(body, 'name'),
    description: formField(body, 'description'),
    enabled: formCheckbox(body, 'enabled'),
    toolSearchEnabled: formCheckbox(body, 'toolSearchEnabled'),
    alwaysLoaded: formLines(body, 'alwaysLoaded').join('\n'),
    toolIds: [...new Set(formFields(body, 'toolIds'))],
    ...(body.teamId === undefined ? {} : { teamId: formField(body, 'teamId') }),
  };
}

export function serverFormOf(server: ServerResponseDto): ServerFormValues {
  return {
    name: server.name,
    description: server.description,
    enabled: server.enabled,
    toolSearchEnabled: server.toolSearch.enabled,
    alwaysLoaded: server.toolSearch.alwaysLoaded.join('\n'),
    toolIds: server.toolIds,
  };
}

/** The longest picker search the form runs; longer text is cut. */
export const PICKER_QUERY_MAX = 200;

/** The picker search as the form runs it: trimmed and cut to length. */
export function pickerQuery(body: FormBody): string {
  return formField(body, 'pickerQ').trim().slice(0, PICKER_QUERY_MAX);
}

/**
 * What a post of the server form asks for. The picker's Search button says 'search'. Enter in a
 * text field presses the form's first submit button, a hidden one that says 'enter': that saves,
 * unless the search box holds a query that has not been run yet, which is what Enter in the
 * search box leaves behind. The visible Save button always saves.
 */
export function serverFormIntent(body: FormBody): 'save' | 'search' {
  const intent = formField(body, 'intent');
  if (intent === 'search') return 'search';
  if (intent === 'enter' && pickerQuery(body) !== formField(body, 'pickerShownQ')) return 'search';
  return 'save';
}

/** The request body the REST API would receive for this form; `toolIds` replaces the membership. */
export function serverInput(values: ServerFormValues): Record<string, unknown> {
  return {
    name: values.name.trim(),
    description: values.description,
    enabled: values.enabled,
    toolIds: values.toolIds,
    toolSearch: {
      enabled: values.toolSearchEnabled,
      alwaysLoaded: values.alwaysLoaded.split('\n').filter((line) => line !== ''),
    },
  };
}

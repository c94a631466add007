import { stem, words } from '../../../common/terms';

/**
 * What a tool does to its resource, read from the verb its name starts with, and what a request
 * asks for, read from how it starts. Sibling tools of one server mostly differ by this verb alone
 * (`list_issues`, `create_issue`, `update_issue`), while a request often says it in words the tool
 * never uses ("show open bugs", "get rid of", "which channels exist").
 */
export enum Action {
  /** Reading in general; as a tool's verb, reading one thing (`get_issue`, `read_file`). */
  Read = 1,
  List = 2,
  Search = 3,
  Create = 4,
  Update = 5,
  Delete = 6,
  Send = 7,
  Run = 8,
}

/** How far a tool's action agrees with the one a request asks for. */
export enum Agreement {
  Same,
  /** Both read, in different ways: a request to list, and a tool that gets one thing. */
  Near,
  Neutral,
  Conflict,
}

const READING = new Set([Action.Read, Action.List, Action.Search]);

/** A request to read in general agrees with any way of reading. */
export function agreement(query: Action, tool: Action): Agreement {
  if (query === tool || (query === Action.Read && READING.has(tool))) return Agreement.Same;
  if (READING.has(query) && READING.has(tool)) return Agreement.Near;
  return compatible(query, tool) ? Agreement.Neutral : Agreement.Conflict;
}

/**
 * Sending a message or running a job also creates something, and adding a thing to another
 * ("add a label to the issue") updates that other: neither excludes the other.
 */
function compatible(a: Action, b: Action): boolean {
  const pair = (x: Action, y: Action) => (a === x && b === y) || (a === y && b === x);
  return (
    pair(Action.Create, Action.Send) ||
    pair(Action.Create, Action.Run) ||
    pair(Action.Create, Action.Update)
  );
}

/** Verbs of tool names and requests, by the action they ask for. General English, no catalogue. */
const VERBS: [Action, string][] = [
  [
    Action.Read,
    'get read show view fetch retrieve describe display inspect check download export extract ' +
      'scrape crawl analyze analyse explain ' +
      'summarize summarise load see look give dump grab pull watch monitor compare diff ' +
      'print open take capture screenshot resolve',
  ],
  [Action.List, 'list enumerate browse count'],
  [Action.Search, 'search find query lookup locate filter explore'],
  [
    Action.Create,
    'create add new make generate build insert upload write compose draft book setup register ' +
      'init initialize initialise clone fork duplicate copy',
  ],
  [
    Action.Update,
    'update edit modify change set patch rename move mark toggle enable disable switch close ' +
      'reopen archive assign unassign label approve replace reschedule protect unprotect star ' +
      'pin unpin rotate resize scale fill',
  ],
  [
    Action.Delete,
    'delete remove drop destroy erase purge trash clear cancel kill terminate discard ' +
      'uninstall revoke unsubscribe',
  ],
  [Action.Send, 'send post reply respond notify email message forward share publish announce tell'],
  [
    Action.Run,
    'run execute start trigger launch rerun retry restart evaluate invoke deploy install ' +
      'navigate click press type',
  ],
];

function verbMap(): ReadonlyMap<string, Action> {
  const map = new Map<string, Action>();
  for (const [action, list] of VERBS)
    for (const word of list.split(' ')) {
      const key = stem(word);
      if (!map.has(key)) map.set(key, action);
    }
  return map;
}

const ACTIONS = verbMap();

/**
 * HTTP methods, as tools generated from an OpenAPI description start their names
 * (`API-post-search`, `API-patch-page`): when another verb follows, that one says what it does.
 */
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

/** The action of a tool: that of the first verb among the words of its name. */
export function toolAction(name: string): Action | null {
  let method: Action | null = null;
  for (const word of words(name)) {
    const action = ACTIONS.get(stem(word));
    if (action === undefined) continue;
    if (method === null && METHODS.has(word)) method = action;
    else return action;
  }
  return method;
}

/** Words a request opens with that say nothing of what it wants ("could you please …"). */
const FILLER = new Set(
  (
    'please can could would will you i we want wanna need to let lets me us go ahead kindly just ' +
    'quickly hey now also then and ok okay so try help like d s'
  ).split(' '),
);

/** A request that opens with one of these is a question: it wants to read, not to change. */
const QUESTION = new Set(
  (
    'what whats which who whose when where why how is are was were does did has have any ' +
    'anything'
  ).split(' '),
);

/** A question with one of these asks for a list ("which channels exist", "are there any …"). */
const ENUMERATING = /\b(?:exists?|are there|all|every|how many)\b/;

/** Multi-word verbs, read as the one-word verb they mean. */
const PHRASAL: [RegExp, string][] = [
  [/\bget rid of\b/g, 'delete'],
  [/\bthrow (?:away|out)\b/g, 'delete'],
  [/\bclean up\b/g, 'delete'],
  [/\bwipe out\b/g, 'delete'],
  [/\bset up\b/g, 'create'],
  [/\bspin up\b/g, 'create'],
  [/\bsign up\b/g, 'create'],
  [/\blook (?:up|for|at|into)\b/g, 'search'],
  [/\bfind out\b/g, 'read'],
  [/\bturn (?:on|off)\b/g, 'toggle'],
  [/\bkick off\b/g, 'start'],
  [/\b(?:do|don't|dont) you\b/g, 'what'],
  [/\btell me\b/g, 'what'],
  [/\bgive me\b/g, 'get'],
  [/\bshow me\b/g, 'show'],
];

/**
 * The action a request asks for: a question wants to read; else its first verb, skipping filler.
 * "Open" with an indefinite article makes something new ("open a pull request"); with a definite
 * one it reads ("open the latest message"). Null when the request opens with neither.
 */
export function queryAction(query: string): Action | null {
  let text = query.toLowerCase();
  for (const [phrase, verb] of PHRASAL) text = text.replace(phrase, verb);
  const list = words(text);
  let at = 0;
  while (at < list.length && FILLER.has(list[at]!)) at++;
  const first = list[at];
  if (first === undefined) return null;
  if (QUESTION.has(first)) return ENUMERATING.test(text) ? Action.List : Action.Read;
  if (first === 'open') {
    const next = list[at + 1];
    return next === 'a' || next === 'an' || next === 'new' ? Action.Create : Action.Read;
  }
  return ACTIONS.get(stem(first)) ?? null;
}

import stemPorter2 from 'wink-porter2-stemmer';
import { Memo } from './memo';

/**
 * Words that say nothing about which tool is wanted: articles, pronouns, auxiliaries, and the
 * politeness and filler of requests ("could you please show me …").
 */
const STOPWORDS = new Set(
  (
    'a about above after again also am an and any are as at be been being but by can could ' +
    'did do does doing done for from get give got had has have having he her here hers him his ' +
    'how i if in into is it its itself just let lets me mine my myself need no nor not now of ' +
    'off on once only or other our ours out over own please right same she should so some such ' +
    'than that the their theirs them then there these they this those through to too under until ' +
    'up us very via want was we were what when where which while who whom why will with would ' +
    'yet you your yours'
  ).split(' '),
);

/**
 * Abbreviations people and tool authors use for the same thing, read as their long form on both
 * sides, so that "PR 42" meets "pull request" and a tool that says "MR" meets "merge request".
 */
const ABBREVIATIONS: Record<string, string> = {
  pr: 'pull request',
  prs: 'pull requests',
  mr: 'merge request',
  mrs: 'merge requests',
  repo: 'repository',
  repos: 'repositories',
  db: 'database',
  dbs: 'databases',
  k8s: 'kubernetes',
  kube: 'kubernetes',
  env: 'environment',
  envs: 'environments',
  config: 'configuration',
  cfg: 'configuration',
  conf: 'configuration',
  msg: 'message',
  msgs: 'messages',
  dm: 'direct message',
  dir: 'directory',
  dirs: 'directories',
  doc: 'document',
  docs: 'documentation',
  info: 'information',
  auth: 'authentication',
  org: 'organization',
  orgs: 'organizations',
  ns: 'namespace',
  img: 'image',
  pic: 'picture',
  pics: 'pictures',
  vm: 'virtual machine',
  js: 'javascript',
  ts: 'typescript',
  py: 'python',
  ci: 'continuous integration',
  cd: 'continuous delivery',
  dns: 'domain name',
  ui: 'user interface',
  ux: 'user experience',
  qa: 'quality assurance',
  eta: 'estimated arrival',
  calc: 'calculate',
  stats: 'statistics',
  perf: 'performance',
  prod: 'production',
  dev: 'development',
  deps: 'dependencies',
  dep: 'dependency',
  cpu: 'processor',
  mem: 'memory',
  temp: 'temporary',
  tmp: 'temporary',
  sync: 'synchronize',
  async: 'asynchronous',
  crm: 'customer relationship management',
};

/**
 * Multi-word forms written as one word, so that they neither split nor fall to the stopwords
 * ("to-do" would leave nothing).
 */
const PHRASES: [RegExp, string][] = [
  [/\bto[\s-]do(s?)\b/g, 'todo$1'],
  [/\b(?:log|sign)[\s-]?(in|out)\b/g, 'log$1'],
  [/\be-mail/g, 'email'],
  [/\bdrop[\s-]down/g, 'dropdown'],
  [/\bweb[\s-](site|page)/g, 'web$1'],
  [/\bhow many\b/g, 'count'],
  [/\bset[\s-]up\b/g, 'setup'],
  [/\blook[\s-]up\b/g, 'lookup'],
  [/\broll[\s-]back\b/g, 'rollback'],
  [/\bkick[\s-]off\b/g, 'start'],
  // Who changed something is a question for its history.
  [/\bwho (?:last |recently )?(?:changed|touched|edited|modified|updated|wrote)\b/g, 'who history'],
];

/** Bounded memo of stems: vocabularies are small, and stemming is most of tokenising. */
const stems = new Memo<string, string>(200_000);

/**
 * Longer words are not stemmed: no word of a language is this long, and the stemmer's time grows
 * with the square of a word's length (a 30,000-letter query held a replica for seconds).
 */
const STEMMED_LENGTH = 64;

/**
 * The Porter2 stem of a lower-case word; numbers, short and overlong words stay as they are (and
 * are not remembered: a flood of long words must not fill the memo).
 */
export function stem(word: string): string {
  if (word.length <= 2 || word.length > STEMMED_LENGTH) return word;
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    stemmed = /\d/.test(word) ? word : stemPorter2(word);
    stems.remember(word, stemmed);
  }
  return stemmed;
}

/**
 * The lower-case words of `text`, with identifiers split: `listPullRequests`,
 * `list_pull_requests`, `list-pull.requests` and "list pull requests" give the same words.
 */
export function words(text: string): string[] {
  let lower = text
    // Plural acronyms ("PRs", "URLs") stay one word.
    .replace(/(\p{Lu}{2,})s\b/gu, (_, acronym: string) => ` ${acronym.toLowerCase()}s`)
    .replace(/([\p{Ll}\p{N}])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu}+)(\p{Lu}\p{Ll})/gu, '$1 $2')
    .toLowerCase();
  for (const [phrase, word] of PHRASES) lower = lower.replace(phrase, word);
  return lower.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '');
}

/**
 * The index terms of `text`: its words less stopwords and single letters, abbreviations spelt
 * out, each stemmed.
 */
export function terms(text: string): string[] {
  const result: string[] = [];
  for (const word of words(text)) {
    if (word.length < 2 || STOPWORDS.has(word)) continue;
    const long = ABBREVIATIONS[word];
    if (long === undefined) result.push(stem(word));
    else for (const part of long.split(' ')) result.push(stem(part));
  }
  return result;
}

/**
 * A file name or path in a request ("config/settings.yaml", ".env", "server.ts"): all lower
 * case, as file names mostly are and product names ("Next.js") mostly are not. A web address
 * is no file.
 */
const FILE_NAME =
  /(?:^|\s)(?!https?:|www\.)(?:[\w.~-]*\/)*\.?[\w-]*\.[a-z0-9]{1,5}(?=[\s,;:!?)]|$)/;

/**
 * The terms of a request: its own, and "file" when it names a file, so that a request that only
 * says which file still reaches the tools that work on files.
 */
export function queryTerms(query: string): string[] {
  const result = terms(query);
  const named = query.match(FILE_NAME)?.[0].trim();
  if (named !== undefined && named === named.toLowerCase() && !/\.\d+$/.test(named))
    result.push(stem('file'));
  return result;
}

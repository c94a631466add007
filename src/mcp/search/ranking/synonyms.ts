import { stem, words } from '../../../common/terms';

/**
 * Words people use for the same action or thing when they ask for a tool, in the domains an MCP
 * gateway fronts: code hosting, chat, mail, calendars, documents, databases, browsers, cloud and
 * operations. A query word reaches the other words of its groups at a reduced weight. Written for
 * the vocabulary of tool requests in general, not for any one catalogue.
 */
const GROUPS: readonly string[] = [
  // Actions.
  'create make add new open start generate build compose set up',
  'delete remove drop destroy erase purge discard trash',
  'list show enumerate browse index overview',
  'get fetch retrieve read view open load see display inspect',
  'update change modify edit set patch alter adjust switch replace',
  'search find lookup query locate look discover filter',
  'send post publish tell notify message announce broadcast share',
  'reply respond answer',
  'run execute launch trigger invoke start kick',
  'stop terminate kill cancel halt abort end quit',
  'rerun retry restart rebuild',
  'move rename relocate',
  'copy duplicate fork clone',
  'merge combine land ship',
  'approve accept sign endorse ok',
  'decline reject refuse deny',
  'close resolve finish complete done fix',
  'schedule book plan arrange reserve',
  'download save export pull fetch',
  'upload attach import',
  'write save store record',
  'install deploy provision',
  'uninstall remove',
  'undo revert rollback restore',
  'mute silence snooze suppress',
  'assign allocate delegate',
  'link connect associate relate attach',
  'analyze analyse investigate diagnose debug troubleshoot explain',
  'compare diff difference',
  'check verify validate test lint',
  'summarize summary digest',
  'navigate go visit browse open',
  'click press tap push',
  'type enter fill input',
  'choose select pick',
  'convert transform translate',
  'count number total tally',
  'scale resize grow shrink',
  'monitor watch track observe',
  'remember memorize store note',
  'forget delete remove',
  'compress zip gzip archive pack',
  'extract pull scrape parse',
  'repeat echo',
  'all every batch bulk many multiple',
  'reschedule postpone move delay',
  'cancel delete',
  'automate automation workflow',
  'audit history changelog activity blame',
  'blame author',
  // Things.
  'file document',
  'folder directory',
  'email mail message inbox',
  'message chat conversation post',
  'meeting event appointment invite invitation call',
  'calendar schedule agenda',
  'page tab window site website webpage url',
  'screenshot capture picture image snapshot photo',
  'video recording screencast',
  'error exception crash bug failure fault problem issue',
  'issue ticket bug task story',
  'log logs output trace',
  'metric measurement statistic stat usage processor load utilization',
  'chart graph plot diagram visualization visualize',
  'user member person people account teammate colleague',
  'team group squad',
  'label tag category',
  'comment note remark feedback',
  'branch ref',
  'commit change revision',
  'pipeline build job workflow',
  'release deployment version rollout deploy',
  'flag toggle switch feature',
  'sprint iteration cycle',
  'task todo checklist item',
  'server host machine node instance',
  'cluster kubernetes',
  'container pod',
  'shell terminal command console prompt',
  'process program app application',
  'size disk storage space bytes',
  'slow performance latency speed fast',
  'free available busy availability',
  'address location place coordinates position',
  'place venue restaurant cafe bar shop hotel business',
  'viewport screen window size dimensions',
  'mobile phone device emulate',
  'hours opening details',
  'near nearby local around close',
  'directions route drive travel distance',
  'crawl scrape spider',
  'research report investigation study',
  'paper article publication academic',
  'memory knowledge graph',
  'database db collection table',
  'record row document entry object',
  'field column property attribute',
  'schema structure shape fields',
  'query sql select',
  'documentation docs manual guide reference',
  'owner assignee',
  'contact customer lead client',
  'company organization account business',
  'deal opportunity sale',
  'secret key token credential',
  'setting config configuration option preference',
  'alert alarm monitor notification',
  'incident outage downtime',
  'dashboard board',
  'popup dialog modal alert prompt',
  'dropdown select option menu',
  'form field input',
  'heap memory',
  'hover mouse',
  'repository project codebase',
  'review approval',
  'reaction emoji react thumbs upvote',
  'thread replies conversation',
  'channel room',
  'status state health passing failing green',
  'today now current latest recent',
  'content contents inside body text',
  'png jpg jpeg gif svg image media',
  'main master trunk default',
  'remember memory recall',
  'request call traffic network',
  'details information info',
  'called named title',
  'maintenance downtime window',
  'flowchart flow diagram',
  'account profile user',
];

/** A term a query term reaches, and how much a match on it counts against an exact match. */
export interface Expansion {
  term: string;
  weight: number;
}

/**
 * Stemmed term to the other stemmed terms of its groups. Built once; the groups hold plain
 * words so that they read as a thesaurus and stem the same way as the texts they meet.
 */
function related(): ReadonlyMap<string, ReadonlySet<string>> {
  const map = new Map<string, Set<string>>();
  for (const group of GROUPS) {
    const members = [...new Set(words(group).map(stem))];
    for (const member of members) {
      let set = map.get(member);
      if (!set) map.set(member, (set = new Set()));
      for (const other of members) if (other !== member) set.add(other);
    }
  }
  return map;
}

const RELATED = related();

/** `term` itself at full weight, then its synonyms at `weight`. */
export function expand(term: string, weight: number): Expansion[] {
  const expansions: Expansion[] = [{ term, weight: 1 }];
  if (weight > 0)
    for (const other of RELATED.get(term) ?? []) expansions.push({ term: other, weight });
  return expansions;
}

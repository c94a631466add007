import { type CompiledRule, compileRules, type RuleGroup } from './compiled-rules';
import { walkDefinition, type TextSlot } from './definition-walk';
import { type Finding, type ScannedDefinition } from './finding';
import { imitationsOf } from './name-imitation';
import { type ContextRule, type PatternTarget, SCANNER_RULES } from './rules';
import { excerptAt, parameterWords, proseForm } from './text-forms';
import { type ScanContext } from './tool-name-index';

export { type Finding, type ScannedDefinition } from './finding';
export { type KnownTool, scanContext, type ScanContext, ToolNameIndex } from './tool-name-index';

const RULES = compileRules(SCANNER_RULES);

/** A definition with more findings than this is reported with the first ones. */
export const FINDINGS_LIMIT = 50;
/** Matches of one pattern in one text looked at before giving up on finding one that counts. */
const MATCHES_LIMIT = 16;
/** Tool-like words of one text looked up as other gateways' tools. */
const REFERENCES_LIMIT = 1_000;
const TOOL_LIKE_WORD = /\b[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+/g;
/** Shorter words (`e.g`, `x-id`) are too common to read as tool names. */
const REFERENCE_MIN = 6;

/**
 * Reads one tool, prompt or resource template for signs of tool poisoning: hidden text,
 * instructions aimed at the model, references to other gateways' tools and to secrets, schemas
 * that ask for credentials, and names that imitate other gateways' tools. Each rule reports at
 * most once per field. Pure and bounded: any input, however large or deep, is read within
 * `SCAN_LIMITS`, and what lies past them is reported, not read.
 */
export function scanDefinition(definition: ScannedDefinition, context: ScanContext): Finding[] {
  const findings = new Findings();
  const name = typeof definition.name === 'string' ? definition.name : '';
  const scan = new TextScan(findings, context, name.toLowerCase());
  const { truncated } = walkDefinition(definition, (slot) => scan.read(slot));
  for (const imitation of imitationsOf(name, context)) {
    const rule = RULES.byCheck[imitation.check];
    findings.add(rule, 'name', messageOf(rule, imitation), excerptAt(name, 0));
  }
  if (truncated !== null) {
    const rule = RULES.byCheck['truncated-scan'];
    findings.add(rule, 'definition', `${rule.message} (${truncated})`, '');
  }
  return findings.list;
}

function messageOf(rule: ContextRule, names: { gateway: string; tool: string }): string {
  return rule.message.replace('{gateway}', names.gateway).replace('{tool}', names.tool);
}

/** The findings of one definition, one per rule and field, at most `FINDINGS_LIMIT`. */
class Findings {
  readonly list: Finding[] = [];
  private readonly seen = new Set<string>();

  get full(): boolean {
    return this.list.length >= FINDINGS_LIMIT;
  }

  has(rule: string, field: string): boolean {
    return this.seen.has(`${rule}\n${field}`);
  }

  add(
    rule: { id: string; severity: Finding['severity'] },
    field: string,
    message: string,
    excerpt: string,
  ): void {
    const key = `${rule.id}\n${field}`;
    if (this.full || this.seen.has(key)) return;
    this.seen.add(key);
    this.list.push({ rule: rule.id, severity: rule.severity, field, message, excerpt });
  }
}

/** Runs the rules over each text of one definition. */
class TextScan {
  constructor(
    private readonly findings: Findings,
    private readonly context: ScanContext,
    private readonly self: string,
  ) {}

  read(slot: TextSlot): void {
    if (this.findings.full || slot.text === '') return;
    this.match('raw', slot.text, slot);
    if (slot.prose || slot.parameterDescription) {
      const prose = proseForm(slot.text);
      if (slot.prose) {
        this.match('prose', prose, slot);
        this.references(prose, slot);
      }
      if (slot.parameterDescription) this.match('parameter-description', prose, slot);
    }
    if (slot.parameterName) this.match('parameter-name', parameterWords(slot.text), slot);
  }

  private match(target: PatternTarget, text: string, slot: TextSlot): void {
    for (const group of RULES.byTarget[target]) this.matchGroup(group, text, slot);
  }

  private matchGroup(group: RuleGroup, text: string, slot: TextSlot): void {
    if (!group.screen.test(text)) return;
    let field: string | null = null;
    for (const compiled of group.rules) {
      field ??= slot.path.toString();
      if (this.findings.has(compiled.rule.id, field)) continue;
      const at = this.firstMatch(compiled, text);
      if (at !== null)
        this.findings.add(compiled.rule, field, compiled.rule.message, excerptAt(text, at));
    }
  }

  /** Where the rule first matches `text`, after its exceptions are blanked out; null if nowhere. */
  private firstMatch({ rule, patterns, except }: CompiledRule, text: string): number | null {
    let subject = text;
    for (const pattern of except)
      subject = subject.replace(pattern, (hit) => ' '.repeat(hit.length));
    for (const pattern of patterns) {
      pattern.lastIndex = 0;
      for (let tries = 0; tries < MATCHES_LIMIT; tries++) {
        const match = pattern.exec(subject);
        if (match === null) break;
        if (match[0] === '') pattern.lastIndex++;
        const tool = match.groups?.tool?.toLowerCase();
        if (rule.exceptOwnTools && tool !== undefined && this.isOwn(tool)) continue;
        return match.index;
      }
    }
    return null;
  }

  private isOwn(lowerName: string): boolean {
    return lowerName === this.self || this.context.ownTools.has(lowerName);
  }

  /** The first name of another gateway's tool in the text. */
  private references(prose: string, slot: TextSlot): void {
    const rule = RULES.byCheck['other-tool-reference'];
    TOOL_LIKE_WORD.lastIndex = 0;
    for (let count = 0; count < REFERENCES_LIMIT; count++) {
      const match = TOOL_LIKE_WORD.exec(prose);
      if (match === null) return;
      const word = match[0].toLowerCase();
      if (word.length < REFERENCE_MIN || this.isOwn(word)) continue;
      const tool = this.context.tools.referencedTool(word, this.context.gatewaySlug);
      if (tool === null) continue;
      const message = messageOf(rule, { gateway: tool.gatewaySlug, tool: tool.name });
      this.findings.add(rule, slot.path.toString(), message, excerptAt(prose, match.index));
      return;
    }
  }
}

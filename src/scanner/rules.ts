import { type FindingSeverity } from './finding';

/**
 * The definition scanner's rules, as data: what each looks at, what it matches and how severe a
 * match is. Patterns are regular-expression sources compiled once at start-up (a test compiles
 * them all); every quantifier is bounded or over a class that cannot overlap its neighbour, so no
 * pattern backtracks without limit on a long text.
 */

export type RuleCategory =
  | 'hidden-text'
  | 'model-instruction'
  | 'tool-reference'
  | 'secret-reference'
  | 'credential-schema'
  | 'name-imitation'
  | 'scan-limit';

/**
 * What a pattern rule reads:
 * - `raw`: every string of the definition as the upstream sent it, the name and object keys too;
 * - `prose`: the texts a model reads as language (descriptions, titles, schema and `_meta`
 *   strings), in NFKC, without invisible characters, with Cyrillic and Greek lookalikes folded to
 *   Latin, Unicode tag characters decoded to the ASCII they smuggle, and each run of whitespace
 *   made one space (or one line break, if it held one);
 * - `parameter-name`: the names of input properties and prompt arguments as lower-case words
 *   (`apiKey` and `API_KEY` are both `api key`);
 * - `parameter-description`: the prose of those parameters' descriptions.
 */
export type PatternTarget = 'raw' | 'prose' | 'parameter-name' | 'parameter-description';

export interface PatternRule {
  id: string;
  category: RuleCategory;
  severity: FindingSeverity;
  message: string;
  target: PatternTarget;
  flags: string;
  patterns: readonly string[];
  /** What is blanked out of a text before the patterns run: the benign look-alikes. */
  except?: readonly string[];
  /** A match whose named group `tool` is one of the gateway's own tools is no finding. */
  exceptOwnTools?: boolean;
}

/** Checks that need the scan context or the walk, not a pattern. */
export type ContextCheck =
  | 'other-tool-reference'
  | 'lookalike-characters'
  | 'impersonated-tool'
  | 'lookalike-slug'
  | 'embedded-slug'
  | 'transposed-name'
  | 'truncated-scan';

export interface ContextRule {
  id: string;
  category: RuleCategory;
  severity: FindingSeverity;
  /** `{gateway}` and `{tool}` stand for the other gateway's slug and tool name. */
  message: string;
  check: ContextCheck;
}

export type ScannerRule = PatternRule | ContextRule;

const QUOTE_CHARACTERS = String.raw`"'\x60\u2018\u2019\u201C\u201D`;
const QUOTE = `[${QUOTE_CHARACTERS}]`;
/** A tool-like identifier: words joined by `_`, `-` or `.`, as most tool names are. */
const IDENTIFIER = String.raw`[A-Za-z][A-Za-z0-9]*(?:[_.-][A-Za-z0-9]+)+`;
/** Characters that show nothing: zero-width ones, fillers, bidi marks, the soft hyphen. */
export const INVISIBLE = String.raw`\u00AD\u034F\u061C\u115F\u1160\u17B4\u17B5\u180E\u200B-\u200F\u2060-\u2064\u3164\uFEFF\uFFA0`;
/** Files that hold keys, passwords or MCP client configurations (with their servers' secrets). */
const SENSITIVE_PATH = `(?:${[
  String.raw`(?<![\w-])\.ssh\b`,
  String.raw`(?<![\w.-])id_(?:rsa|dsa|ecdsa|ed25519)\b`,
  String.raw`\/etc\/(?:passwd|shadow|gshadow|sudoers)\b`,
  String.raw`\.aws[\/\\](?:credentials|config)\b`,
  String.raw`\baws_secret_access_key\b`,
  String.raw`\.git-credentials\b`,
  String.raw`(?<![\w.-])\.netrc\b`,
  String.raw`\bmcp\.json\b`,
  String.raw`\bclaude_desktop_config\.json\b`,
  String.raw`(?<![\w.-])\.(?:cursor|codeium|windsurf|claude|continue|vscode)[\/\\](?:mcp|settings|config)`,
  String.raw`\.gnupg\b`,
  String.raw`\bwallet\.dat\b`,
  String.raw`\blogin\.keychain\b`,
].join('|')})`;
/** A verb of reading or sending, or "the contents of". */
const ACCESS = String.raw`\b(?:read|reads|reading|cat|open|load|send|upload|include|pass|copy|get|fetch|access|attach|forward|post|exfiltrate|extract|collect|dump|print|output|contents?\s+of)\b`;
/** Any character up to the end of a sentence; a dot inside a path (`~/.ssh`) does not end one. */
const SAME_SENTENCE = String.raw`(?:[^.!?\n]|\.(?!\s))`;
const SECRET_NOUN = String.raw`(?:api[\s_-]?keys?|private[\s_-]?keys?|secret[\s_-]?keys?|passwords?|passphrases?|credentials|(?:access|auth(?:entication)?|bearer|refresh|session)[\s_-]?tokens?|session[\s_-]?cookies?|seed[\s_-]?phrases?|mnemonics?|recovery[\s_-]?phrases?|ssh[\s_-]?keys?|environment[\s_-]variables|env[\s_-]vars)`;

export const SCANNER_RULES: readonly ScannerRule[] = [
  // Hidden text: what a person reviewing the definition would not see, but the model reads.
  {
    id: 'bidi-control',
    category: 'hidden-text',
    severity: 'high',
    message: 'bidirectional control characters, which reorder what a reader sees',
    target: 'raw',
    flags: 'u',
    patterns: [String.raw`[\u202A-\u202E\u2066-\u2069]`],
  },
  {
    id: 'unicode-tag',
    category: 'hidden-text',
    severity: 'high',
    message: 'Unicode tag characters, invisible text that a model can still read',
    target: 'raw',
    flags: 'u',
    patterns: [String.raw`[\u{E0000}-\u{E007F}]`],
    // A subdivision flag such as Scotland's is a black flag followed by tag letters.
    except: [String.raw`\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,7}\u{E007F}`],
  },
  {
    id: 'invisible-run',
    category: 'hidden-text',
    severity: 'high',
    message: 'a run of invisible characters, enough to encode hidden text',
    target: 'raw',
    flags: 'u',
    patterns: [`[${INVISIBLE}]{3,}`],
  },
  {
    id: 'variation-selector-run',
    category: 'hidden-text',
    severity: 'high',
    message: 'variation selectors in a row or after plain text, a way to smuggle data',
    target: 'raw',
    flags: 'u',
    patterns: [
      String.raw`[\uFE00-\uFE0F\u{E0100}-\u{E01EF}]{2,}`,
      String.raw`(?<=[\x21-\x7E])[\u{E0100}-\u{E01EF}]`,
    ],
  },
  {
    id: 'terminal-escape',
    category: 'hidden-text',
    severity: 'high',
    message: 'terminal escape sequences, which can hide or rewrite text in a console',
    target: 'raw',
    flags: 'u',
    patterns: [String.raw`\x1B[\[\]PX^_]`, String.raw`\x9B`],
  },
  {
    id: 'invisible-character',
    category: 'hidden-text',
    severity: 'medium',
    message: 'an invisible character inside the text',
    target: 'raw',
    flags: 'u',
    patterns: [`[${INVISIBLE}]`],
    // A byte-order mark at the very start, and the joiner inside an emoji sequence, are normal.
    except: [
      String.raw`^\uFEFF`,
      String.raw`\p{Extended_Pictographic}\uFE0F?\u200D(?=\p{Extended_Pictographic})`,
    ],
  },
  {
    id: 'control-character',
    category: 'hidden-text',
    severity: 'medium',
    message: 'control characters in text',
    target: 'raw',
    flags: 'u',
    patterns: [String.raw`[\x00-\x08\x0B\x0C\x0E-\x1A\x1C-\x1F\x7F-\x9A\x9C-\x9F]`],
  },
  {
    id: 'html-comment',
    category: 'hidden-text',
    severity: 'medium',
    message: 'an HTML comment: text a rendered view hides but the model reads',
    target: 'prose',
    flags: 'i',
    patterns: [String.raw`<!--`, String.raw`^\s*\[(?:\/\/|comment)\]:\s*[#<]`],
  },
  {
    id: 'hidden-markup',
    category: 'hidden-text',
    severity: 'medium',
    message: 'markup that hides text from a reader',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`style\s*=\s*["'][^"'<>]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d]*[1-9])|opacity\s*:\s*0(?![.\d]*[1-9]))`,
      String.raw`<[a-z][a-z0-9]{0,20}\s[^<>]{0,200}?\bhidden\b[^<>]{0,200}>`,
    ],
  },
  {
    id: 'instruction-tag',
    category: 'model-instruction',
    severity: 'high',
    message: 'a tag that poses as instructions to the model, such as <IMPORTANT> or <system>',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`<[ \t]{0,5}\/?[ \t]{0,5}(?:(?:important|critical)(?:[_ -](?:instructions?|notes?|notice|information))?|system|system[_ -]?(?:prompt|message|instructions?)|instructions?|secret|hidden|admin|override|critical|assistant[_ -]?(?:instructions?|note)|ai[_ -]?(?:instructions?|note)|note[_ -]to[_ -](?:the[_ -])?(?:ai|assistant|model|llm))[ \t]{0,5}>`,
      String.raw`\[ ?(?:system|important|instructions?) ?\]`,
    ],
  },
  {
    id: 'chat-template-token',
    category: 'model-instruction',
    severity: 'high',
    message: "a chat-template token that forges a turn of the model's conversation",
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|begin_of_text|start_header_id|end_header_id|eot_id)\|>`,
      String.raw`\[\/?INST\]`,
      String.raw`<<\/?SYS>>`,
      String.raw`(?:^|\n) ?#{0,3} ?(?:system|assistant)(?: prompt| message)? ?: ?(?:you|ignore|from now|always|never|your)\b`,
    ],
  },

  // Instructions aimed at the model rather than a description of what the tool does.
  {
    id: 'ignore-instructions',
    category: 'model-instruction',
    severity: 'high',
    message: 'asks the model to ignore its other instructions',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+|these\s+|those\s+|my\s+)?(?:previous|prior|above|earlier|preceding|original|initial|system|safety|security|other)\s+(?:instructions?|prompts?|rules|directions|directives|guidelines|guardrails|messages|context|constraints)\b`,
      String.raw`\b(?:ignore|disregard)\s+(?:all|any)\s+(?:instructions?|rules|guidelines|directives)\b`,
      String.raw`\bnew\s+(?:system\s+)?(?:instructions?|directives?)\s*:`,
      String.raw`\bsystem\s+override\b`,
    ],
  },
  {
    id: 'conceal-from-user',
    category: 'model-instruction',
    severity: 'high',
    message: 'asks the model to keep something from the user',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\b(?:do\s+not|don['’]?t|never|must\s+not|should\s+not|without)\s+(?:tell(?:ing)?|inform(?:ing)?|notify(?:ing)?|alert(?:ing)?|warn(?:ing)?|let(?:ting)?)\s+(?:the\s+|your\s+)?user\b`,
      String.raw`\b(?:do\s+not|don['’]?t|never|must\s+not|should\s+not)\s+(?:mention|reveal|disclose|expose|explain|acknowledge)\b[^.!?\n]{0,60}?\b(?:to|with)\s+(?:the\s+|your\s+)?user\b`,
      String.raw`\b(?:do\s+not|don['’]?t|never)\s+(?:mention|reveal|disclose|admit)\s+(?:that|this|it|anything\s+about)\b`,
      String.raw`\b(?:the\s+)?user\s+(?:must|should|shall|need|needs\s+to)\s*(?:not|n['’]t)\s+(?:know|see|notice|find\s+out|learn|be\s+(?:told|informed|aware|notified|shown))\b`,
      String.raw`\b(?:hide|conceal|keep)\s+(?:this|it|that|these\s+\w+|the\s+\w+)\s+(?:hidden\s+|secret\s+)?from\s+(?:the\s+|your\s+)?user\b`,
      String.raw`\bwithout\s+the\s+user['’]?s?\s+(?:knowledge|consent|knowing|awareness)\b`,
      String.raw`\bbehind\s+the\s+user['’]?s\s+back\b`,
    ],
  },
  {
    id: 'covert-action',
    category: 'model-instruction',
    severity: 'medium',
    message: 'asks the model to act silently or in secret',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\b(?:silently|secretly|quietly|covertly|discreetly|invisibly)\s+(?:\w+\s+)?(?:call|send|pass|include|read|upload|forward|copy|append|attach|add|execute|run|invoke|use|transmit|exfiltrate|collect|post|fetch|access|leak)\b`,
      String.raw`\b(?:do|perform|execute|run)\s+(?:this|it|that)\s+(?:silently|secretly|quietly|covertly)\b`,
      String.raw`\bwithout\s+asking\s+(?:the\s+user|for\s+(?:permission|consent))\b`,
    ],
  },
  {
    id: 'role-reassignment',
    category: 'model-instruction',
    severity: 'medium',
    message: "tries to change the model's role or rules",
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\byou\s+are\s+now\s+(?:an?\s+|the\s+|in\s+|my\s+|acting\b|operating\b|free\b|unrestricted\b|allowed\b|authori[sz]ed\b)`,
      String.raw`\bfrom\s+now\s+on,?\s+(?:you|always|never|ignore|respond|answer)\b`,
      String.raw`\bact\s+as\s+(?:an?\s+|the\s+)?(?:system|admin(?:istrator)?|root|superuser|unrestricted|jailbroken)\b`,
      String.raw`\b(?:developer|god|jailbreak|dan)\s+mode\b`,
      String.raw`\byour\s+(?:new|real|true|actual)\s+(?:role|task|instructions?|goal|purpose|objective)\s+(?:is|are)\b`,
    ],
  },
  {
    id: 'file-read-instruction',
    category: 'model-instruction',
    severity: 'medium',
    message: 'asks the model to read a file before or while using the tool',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\bbefore\s+(?:using|calling|invoking|running|executing)\s+(?:this|any(?:\s+other)?|the)\s+tools?\b[^.\n]{0,60}?\b(?:read|cat|open|fetch|access|load|upload|collect|copy|send|pass|include)\s`,
      String.raw`\b(?:first|always|must|should|please)\s+(?:read|cat|open|load|access|fetch)\s+(?:the\s+)?(?:contents?\s+of\s+)?(?:the\s+(?:user['’]?s\s+)?(?:file\s+)?)?${QUOTE}?(?:~|\$HOME|%USERPROFILE%|\/(?:etc|home|root|Users|var)\/)`,
    ],
  },
  {
    id: 'exfiltration-instruction',
    category: 'model-instruction',
    severity: 'medium',
    message: 'asks the model to put content it was not given into an argument',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\b(?:pass|send|include|put|insert|add|append|attach|provide|copy|paste|upload|forward|post|embed)\s+(?:it\s+|them\s+)?(?:the\s+|its\s+|their\s+|all\s+)?(?:full\s+|entire\s+|complete\s+|whole\s+|raw\s+)?(?:contents?|text|data|body)\s+of\s+[^.\n]{1,80}?\s+(?:as|in|into|inside|within)\s+(?:the\s+|a\s+)?${QUOTE}?\w+${QUOTE}?\s+(?:parameter|argument|field|param|variable)\b`,
      String.raw`\b(?:pass|send|include|append|attach|forward|copy|share|upload|post|leak|exfiltrate)\s+(?:the\s+|a\s+copy\s+of\s+the\s+|all\s+of\s+the\s+)?(?:entire\s+|full\s+|whole\s+|complete\s+)?(?:conversation(?:\s+history)?|chat\s+history|message\s+history|previous\s+messages|prior\s+messages|system\s+prompt|all\s+(?:previous\s+|prior\s+)?messages)\b(?!\s*(?:id|ids|identifier|name|title|key|url|link)\b)`,
    ],
  },
  {
    id: 'exfiltration-url',
    category: 'model-instruction',
    severity: 'medium',
    message:
      'a link or image whose address takes data from the model: fetching it would send that data away',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`!\[[^\]\n]{0,100}\]\(\s?https?:\/\/[^)\s]{1,300}[?&][^)\s=]{1,40}=`,
      String.raw`https?:\/\/[^\s"'<>()]{1,300}[?&][\w-]{1,40}=(?:\{|<|\$\{?|%7B)`,
    ],
  },
  {
    id: 'tool-shadowing',
    category: 'tool-reference',
    severity: 'medium',
    message:
      "tells the model how to use another tool, or to avoid it: a way to shadow a trusted server's tools",
    target: 'prose',
    flags: 'i',
    exceptOwnTools: true,
    patterns: [
      String.raw`\bwhen(?:ever)?\s+(?:the\s+)?(?:\([^()\n]{1,40}\)\s+)?${QUOTE}?(?<tool>${IDENTIFIER})${QUOTE}?\s+(?:tool\s+is\s+(?:called|used|invoked|available|present|run)|is\s+(?:called|invoked))\b`,
      String.raw`\binstead\s+of\s+(?:using\s+|calling\s+)?(?:the\s+)?${QUOTE}?(?<tool>${IDENTIFIER})${QUOTE}?\s+tool\b`,
      String.raw`\b(?:do\s+not|don['’]?t|never)\s+(?:use|call|invoke)\s+(?:the\s+)?${QUOTE}?(?<tool>${IDENTIFIER})${QUOTE}?\s+tool\b`,
      String.raw`\b(?:always|first)\s+(?:call|invoke|run)\s+(?:the\s+)?${QUOTE}?(?<tool>${IDENTIFIER})${QUOTE}?(?:\s+tool)?\s+(?:first|before)\b`,
      String.raw`\bmust\s+(?:first\s+|always\s+)?(?:call|invoke|run)\s+(?:the\s+)?${QUOTE}?(?<tool>${IDENTIFIER})${QUOTE}?(?:\s+tool)?\s+(?:first|before)\b`,
      String.raw`\b(?:all|any|every)\s+(?:emails?|messages?|requests?|calls?|payments?|transfers?)\s+(?:\w+\s+){0,3}?(?:must|should|shall)\s+(?:also\s+|always\s+)?(?:be\s+)?(?:sent|forwarded|redirected|copied|cc['’]?d|bcc['’]?d|routed)\s+to\b`,
      String.raw`\b(?:change|set|replace|redirect|switch)\s+the\s+(?:recipient|destination|receiver|to\s+address|email\s+address|phone\s+number|account\s+number|wallet\s+address|iban)\s+(?:\w+\s+){0,3}?to\b`,
      String.raw`\b(?:always|also)\s+(?:bcc|cc)\b`,
    ],
  },
  {
    id: 'other-tool-reference',
    category: 'tool-reference',
    severity: 'low',
    message: "names {gateway}'s tool {tool}, a tool of another gateway",
    check: 'other-tool-reference',
  },
  {
    id: 'urgency',
    category: 'model-instruction',
    severity: 'low',
    message: 'pressures the model with urgency or threats',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\b(?:very\s+){2,5}important\b`,
      String.raw`\bthis\s+is\s+(?:extremely|very|absolutely|vitally)\s+(?:important|critical)\b`,
      String.raw`\botherwise\s+(?:the\s+)?(?:tool|system|application|server|it)\s+will\s+(?:not\s+work|fail|crash|break)\b`,
      String.raw`\bor\s+(?:the\s+)?(?:user|data|files?)\s+will\s+be\s+(?:lost|harmed|deleted|hurt)\b`,
    ],
  },

  // Secrets and the files that hold them.
  {
    id: 'sensitive-file-access',
    category: 'secret-reference',
    severity: 'high',
    message:
      'asks to read or send a file that holds secrets, such as SSH keys or an MCP client configuration',
    target: 'prose',
    flags: 'i',
    patterns: [`${ACCESS}${SAME_SENTENCE}{0,80}?${SENSITIVE_PATH}`],
  },
  {
    id: 'sensitive-file',
    category: 'secret-reference',
    severity: 'low',
    message: 'names a file that holds secrets, such as SSH keys or an MCP client configuration',
    target: 'prose',
    flags: 'i',
    patterns: [SENSITIVE_PATH],
  },
  {
    id: 'credential-file',
    category: 'secret-reference',
    severity: 'low',
    message: 'names a configuration file that may hold credentials',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`(?:^|[^\w.\/-])\.env\b(?![\w-])`,
      String.raw`\.kube[\/\\]config\b`,
      String.raw`\.docker[\/\\]config\.json\b`,
      String.raw`(?:^|[^\w.-])\.(?:npmrc|pypirc|pgpass)\b`,
    ],
  },
  {
    id: 'secret-request',
    category: 'secret-reference',
    severity: 'medium',
    message: 'asks the model to read, send or include secrets',
    target: 'prose',
    flags: 'i',
    patterns: [
      String.raw`\b(?:read|send|include|pass|share|reveal|print|output|extract|collect|upload|copy|forward|dump|exfiltrate|leak|attach|append|gather|harvest)\s+(?:\w+['’]?s?\s+){0,3}?${SECRET_NOUN}\b`,
    ],
  },

  // Schemas that ask the model for credentials.
  {
    id: 'credential-parameter',
    category: 'credential-schema',
    severity: 'medium',
    message:
      'an input parameter named for a credential: the model would be asked to supply a secret',
    target: 'parameter-name',
    flags: 'i',
    patterns: [
      String.raw`\b(?:password|passwd|passphrase|passcode|pwd|apikey|api key|access key|secret|secret key|secret access key|client secret|private key|priv key|ssh key|token|(?:access|auth|bearer|refresh|session|id|api|oauth|personal access|github|gitlab|slack|jwt)\s+token|credentials?|session cookie|auth cookie|cookie header|seed phrase|mnemonic|recovery phrase|otp|totp|mfa code|2fa code|ssn|social security number|credit card|card number|cvv|cvc)\b`,
    ],
    except: [
      String.raw`\b(?:page|next|prev|previous|continuation|sync|pagination|cursor|max|min|num|count|limit|cancel|cancellation|progress|csrf|idempotency|resume|start|end|input|output|completion|prompt|total)\s+tokens?\b`,
      String.raw`\btokens?\s+(?:limit|count|budget|usage|type|types|estimate|ids?|name|names)\b`,
      String.raw`\bsecret\s+(?:type|name|names|id|ids|ref|refs|namespace)\b`,
      String.raw`\bcredentials?\s+(?:id|ids|name|type|ref)\b`,
    ],
  },
  {
    id: 'credential-parameter-description',
    category: 'credential-schema',
    severity: 'medium',
    message: "a parameter whose description asks for the user's credentials",
    target: 'parameter-description',
    flags: 'i',
    patterns: [
      String.raw`\b(?:your|the\s+user['’]?s|user['’]?s|current\s+user['’]?s|the\s+account['’]?s)\s+(?:\w+\s+){0,2}?(?:password|passphrase|passcode|api[\s_-]?key|secret(?:\s+key)?|private[\s_-]?key|seed\s+phrase|mnemonic|recovery\s+phrase|(?:personal\s+)?access\s+token|auth(?:entication)?\s+token|session\s+(?:cookie|token)|credentials|2fa\s+code|otp|one-time\s+code)\b`,
      String.raw`\b(?:paste|enter|provide|supply|give)\s+(?:your|the\s+user['’]?s)\s+(?:\w+\s+){0,2}?${SECRET_NOUN}\b`,
    ],
  },

  {
    id: 'sensitive-file-parameter',
    category: 'credential-schema',
    severity: 'high',
    message: 'an input parameter named for a file that holds secrets, such as an SSH key',
    target: 'parameter-name',
    flags: 'i',
    patterns: [
      String.raw`\b(?:id (?:rsa|dsa|ecdsa|ed25519)|etc (?:passwd|shadow)|aws credentials|mcp json|mcp config|claude desktop config|cursor mcp|netrc|git credentials|ssh (?:private )?key (?:file|contents?))\b`,
    ],
  },

  // Names that imitate another gateway's tools.
  {
    id: 'name-lookalike-characters',
    category: 'name-imitation',
    severity: 'high',
    message: "differs from {gateway}'s tool {tool} only in lookalike characters",
    check: 'lookalike-characters',
  },
  {
    id: 'name-impersonates-tool',
    category: 'name-imitation',
    severity: 'high',
    message:
      "poses as {gateway}'s tool {tool}: it carries that gateway's name, or one a letter away",
    check: 'impersonated-tool',
  },
  {
    id: 'name-transposed',
    category: 'name-imitation',
    severity: 'medium',
    message: "is {gateway}'s tool {tool} with two letters swapped",
    check: 'transposed-name',
  },
  {
    id: 'name-lookalike-gateway',
    category: 'name-imitation',
    // Alone a weak sign: `emails_list` is a letter from a gateway `email`.
    severity: 'low',
    message: 'begins with a name one letter away from the gateway {gateway}',
    check: 'lookalike-slug',
  },
  {
    id: 'name-embeds-other-gateway',
    category: 'name-imitation',
    severity: 'low',
    message: 'begins with the name of another gateway, {gateway}',
    check: 'embedded-slug',
  },

  {
    id: 'scan-truncated',
    category: 'scan-limit',
    severity: 'medium',
    message: 'the definition is larger or deeper than the scanner reads; the rest was not scanned',
    check: 'truncated-scan',
  },
];

import { INVISIBLE } from './rules';

/**
 * The forms in which the scanner reads text: prose as a model would take it in, parameter names
 * as words, and excerpts a person can read safely.
 */

/** Cyrillic and Greek letters that look like Latin ones, and the Latin letters they imitate. */
const LOOKALIKES = 'аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХІЈЅҮοανικρυΑΒΕΖΗΙΚΜΝΟΡΤΥΧ';
const LATIN_LETTERS = 'aeopcyxijsdqwhlABEKMHOPCTXIJSYoavikpuABEZHIKMNOPTYX';
const LOOKALIKE_LETTERS = new Map([...LOOKALIKES].map((letter, i) => [letter, LATIN_LETTERS[i]!]));
const LOOKALIKE = new RegExp(`[${LOOKALIKES}]`, 'gu');

/** Folds Cyrillic and Greek lookalikes to the Latin letters they imitate. */
export function foldLookalikes(text: string): string {
  return text.replace(LOOKALIKE, (letter) => LOOKALIKE_LETTERS.get(letter) ?? letter);
}

const PLAIN_TEXT = /^[\x20-\x7E\t\n\r]*$/;
const TAG_TEXT = /[\u{E0020}-\u{E007E}]/gu;
/** Characters that take no room: format characters, fillers and variation selectors. */
const UNSEEN = String.raw`\p{Cf}${INVISIBLE}\p{Variation_Selector}`;
const FORMAT_CHARACTERS = new RegExp(`[${UNSEEN}]`, 'gu');

const SPACING = /[^\S ]|\s{2,}/;
const SPACE_RUN = /\s+/g;

/**
 * Text as the prose rules read it: Unicode tag characters decoded to the ASCII they hide, NFKC
 * (full-width and styled letters become plain ones), invisible and format characters removed (a
 * zero-width space cannot split a phrase apart), lookalike letters folded, and each run of
 * whitespace one space, or one line break if it held one: no pattern then meets a long run.
 */
export function proseForm(text: string): string {
  let prose = text;
  if (!PLAIN_TEXT.test(prose)) {
    prose = prose.replace(TAG_TEXT, (tag) => String.fromCharCode(tag.codePointAt(0)! - 0xe0000));
    prose = foldLookalikes(prose.normalize('NFKC').replace(FORMAT_CHARACTERS, ''));
  }
  if (!SPACING.test(prose)) return prose;
  return prose.replace(SPACE_RUN, (run) => (run === ' ' ? run : run.includes('\n') ? '\n' : ' '));
}

/** Longer parameter names are read only this far. */
const PARAMETER_NAME_LIMIT = 256;

type Letter = 'lower' | 'upper' | 'other';

function letterOf(code: number): Letter {
  if ((code >= 97 && code <= 122) || (code >= 48 && code <= 57)) return 'lower';
  return code >= 65 && code <= 90 ? 'upper' : 'other';
}

/** A parameter name as lower-case words: `apiKey`, `API_KEY` and `api-key` all read `api key`. */
export function parameterWords(name: string): string {
  const text = foldLookalikes(name.slice(0, PARAMETER_NAME_LIMIT));
  let words = '';
  let previous: Letter = 'other';
  for (let i = 0; i < text.length; i++) {
    const kind = letterOf(text.charCodeAt(i));
    // A word starts after anything but a letter or digit, at an upper-case letter after a
    // lower-case one (`apiKey`), and at the last upper-case letter before a lower-case one
    // (`APIKey`).
    const starts =
      kind === 'other'
        ? false
        : previous === 'other' ||
          (kind === 'upper' &&
            (previous === 'lower' || letterOf(text.charCodeAt(i + 1)) === 'lower'));
    if (starts && words !== '') words += ' ';
    if (kind !== 'other') words += text[i]!.toLowerCase();
    previous = kind;
  }
  return words;
}

export const EXCERPT_LIMIT = 120;
const CONTEXT_BEFORE = 30;
const HIDDEN = new RegExp(String.raw`[\p{Cc}\p{Co}\p{Cn}\p{Cs}\p{Zl}\p{Zp}${UNSEEN}]`, 'u');
const SPACE = /\s/u;

/** One character as an excerpt shows it: whitespace as a space, anything unseen as `\u{...}`. */
function shown(character: string): string {
  if (character === '\t' || character === '\n' || character === '\r') return ' ';
  if (HIDDEN.test(character))
    return `\\u{${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`;
  return SPACE.test(character) ? ' ' : character;
}

/**
 * At most `EXCERPT_LIMIT` characters of `text` around a match at `index`: invisible characters
 * are written as `\u{...}` escapes (never cut in half), runs of whitespace as one space, and `…`
 * marks text left out on either side.
 */
export function excerptAt(text: string, index: number): string {
  let start = Math.max(0, index - CONTEXT_BEFORE);
  const code = text.charCodeAt(start);
  if (start > 0 && code >= 0xdc00 && code <= 0xdfff) start--;
  let out = start > 0 ? '…' : '';
  let position = start;
  for (const character of text.slice(start, start + EXCERPT_LIMIT * 4)) {
    const piece = shown(character);
    if (piece === ' ' && out.endsWith(' ')) {
      position += character.length;
      continue;
    }
    if (out.length + piece.length > EXCERPT_LIMIT - 1) return `${out}…`;
    out += piece;
    position += character.length;
  }
  return position < text.length ? `${out}…` : out;
}

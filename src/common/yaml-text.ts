import { isAlias, isMap, isPair, isScalar, isSeq, parseDocument } from 'yaml';

/** YAML text that is refused: not YAML, or past a bound. */
export class YamlTextError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'YamlTextError';
  }
}

/** How deeply YAML may nest before it is refused (JSON bodies stop far sooner). */
const MAX_DEPTH = 1_000;

/**
 * YAML text (JSON is YAML) as a value, in time linear in the text. The library's own alias
 * handling is not: each alias it resolves scans the document's anchors and aliases up to itself
 * (and without its value-building context walks the whole document), so 240 KB of aliases of one
 * scalar held a replica for three minutes; its alias count misses aliases of empty collections; its
 * duplicate-key check is quadratic in a map's keys (30,000 keys: 10 s). So only its parser is used:
 * the text is read as a document, every alias is tied to its anchor in one walk in document order,
 * the nodes it comes to with every alias expanded are counted (each node's count kept, so that is
 * linear too) and may be at most ten per character of the text, duplicate keys are found with a set
 * where `uniqueKeys`, and the value is built here, an alias as its anchor's value.
 */
export function parseYamlText(text: string, options: { uniqueKeys: boolean }): unknown {
  const document = parseDocument(text, { uniqueKeys: false });
  const [error] = document.errors;
  if (error) throw new YamlTextError(error.message);
  const targets = aliasTargets(document.contents);
  const limit = 10 * text.length + 10_000;
  const counted = new Map<unknown, number>();
  const counting = new Set<unknown>();
  const count = (node: unknown): number => {
    if (isAlias(node)) return count(targets.get(node));
    if (!isMap(node) && !isSeq(node)) return isPair(node) ? count(node.key) + count(node.value) : 1;
    const known = counted.get(node);
    if (known !== undefined) return known;
    if (counting.has(node)) throw new YamlTextError('an alias refers to a node that holds it');
    counting.add(node);
    let total = 1;
    const keys = isMap(node) && options.uniqueKeys ? new Set<string>() : null;
    for (const item of node.items as unknown[]) {
      if (keys && isPair(item) && isScalar(item.key)) {
        const name = keyName(item.key.value);
        if (keys.has(name))
          throw new YamlTextError(`the key '${name.slice(0, 100)}' is given twice`);
        keys.add(name);
      }
      total += count(item);
      if (total > limit)
        throw new YamlTextError(
          `its aliases expand it to more than ${limit} values, ten for each of its characters`,
        );
    }
    counting.delete(node);
    counted.set(node, total);
    return total;
  };
  count(document.contents);
  return valueOf(document.contents, targets);
}

/**
 * Each alias under `root` tied to the node it names: the last node before it, in document order,
 * that holds the anchor. Refuses an alias with no such node, and nesting past MAX_DEPTH.
 */
function aliasTargets(root: unknown): Map<unknown, unknown> {
  const anchors = new Map<string, unknown>();
  const targets = new Map<unknown, unknown>();
  const walk = (node: unknown, depth: number): void => {
    if (depth > MAX_DEPTH) throw new YamlTextError(`it nests more than ${MAX_DEPTH} levels deep`);
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined)
        throw new YamlTextError(
          `the alias *${node.source.slice(0, 100)} names no anchor before it`,
        );
      targets.set(node, target);
      return;
    }
    const anchor = (node as { anchor?: unknown } | null)?.anchor;
    if (typeof anchor === 'string') anchors.set(anchor, node);
    if (isPair(node)) {
      walk(node.key, depth + 1);
      walk(node.value, depth + 1);
    } else if (isMap(node) || isSeq(node))
      for (const item of node.items as unknown[]) walk(item, depth + 1);
  };
  walk(root, 0);
  return targets;
}

/**
 * The value of a node whose aliases `aliasTargets` tied and whose size `parseYamlText` bounded:
 * a map is an object (a key that is not a scalar refused; `__proto__` an own key like any other;
 * a 1.1 merge key's maps merged in), a sequence an array (a pair in
 * it, `[a: 1]`, an object of one key), an alias the value of its anchor, built once.
 */
function valueOf(root: unknown, targets: Map<unknown, unknown>): unknown {
  const built = new Map<unknown, unknown>();
  const value = (node: unknown): unknown => {
    if (isAlias(node)) return value(targets.get(node));
    if (isScalar(node)) return node.value;
    if (!isMap(node) && !isSeq(node) && !isPair(node)) return node ?? null;
    const known = built.get(node);
    if (known !== undefined) return known;
    let result: unknown;
    if (isSeq(node))
      result = node.items.map((item) => (isPair(item) ? entries([item]) : value(item)));
    else result = entries(isPair(node) ? [node] : node.items);
    built.set(node, result);
    return result;
  };
  const entries = (pairs: unknown[]): Record<string, unknown> => {
    const object: Record<string, unknown> = {};
    for (const pair of pairs) {
      if (!isPair(pair)) continue;
      const { key } = pair;
      if (!isScalar(key) && key !== null)
        throw new YamlTextError('a key is a collection; keys must be plain values');
      // The library reads a `%YAML 1.1` document's merge key, `<<`, as a symbol: the maps it
      // names add the keys not given yet, and keys given after it override theirs.
      if (isScalar(key) && typeof key.value === 'symbol') {
        const from = value(pair.value);
        for (const source of (Array.isArray(from) ? from : [from]).filter(isObject))
          for (const name of Object.keys(source))
            if (!Object.hasOwn(object, name)) define(object, name, source[name]);
      } else define(object, keyName(isScalar(key) ? key.value : null), value(pair.value));
    }
    return object;
  };
  return value(root);
}

/**
 * A scalar key as an object's key: null (`null:`, or none) is the empty string, as in the library;
 * a binary one (`!!binary`) its bytes as JSON.
 */
function keyName(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint')
    return String(value);
  return value === null ? '' : (JSON.stringify(value) ?? '');
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** Sets an own, enumerable key, `__proto__` included, as JSON.parse would. */
function define(object: Record<string, unknown>, name: string, value: unknown): void {
  Object.defineProperty(object, name, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

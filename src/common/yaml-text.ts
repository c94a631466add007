import { type Document, isAlias, isMap, isScalar, isSeq, parseDocument } from 'yaml';

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
 * YAML text (JSON is YAML) as a value, within bounds the library does not keep by itself. Its
 * alias count misses aliases of empty collections, which leaves its own walk quadratic (120 KB of
 * `[*a, *a, …]` over `&a [{}, {}, …]` held a replica for 24 s), and its duplicate-key check is
 * quadratic in a map's keys (30,000 keys: 10 s). So the text is read as a document first, in
 * linear time; the nodes it comes to with every alias expanded are counted (each node's count
 * kept, so that is linear too) and may be at most ten per character of the text; duplicate keys
 * are found with a set where `uniqueKeys`; only then is the value built.
 */
export function parseYamlText(text: string, options: { uniqueKeys: boolean }): unknown {
  const document = parseDocument(text, { uniqueKeys: false });
  const [error] = document.errors;
  if (error) throw new YamlTextError(error.message);
  expandedNodes(document, 10 * text.length + 10_000, options.uniqueKeys);
  try {
    return document.toJS({ maxAliasCount: 100 });
  } catch (failure) {
    throw new YamlTextError((failure as Error).message);
  }
}

/** Counts the nodes of `document` with its aliases expanded, refusing past `limit`. */
function expandedNodes(document: Document, limit: number, uniqueKeys: boolean): number {
  const counted = new Map<unknown, number>();
  const counting = new Set<unknown>();
  const count = (node: unknown, depth: number): number => {
    if (isAlias(node)) return count(node.resolve(document), depth);
    if (!isMap(node) && !isSeq(node)) return 1;
    const known = counted.get(node);
    if (known !== undefined) return known;
    if (depth > MAX_DEPTH) throw new YamlTextError(`it nests more than ${MAX_DEPTH} levels deep`);
    if (counting.has(node)) throw new YamlTextError('an alias refers to a node that holds it');
    counting.add(node);
    let total = 1;
    const keys = isMap(node) && uniqueKeys ? new Set<string>() : null;
    for (const item of node.items as unknown[]) {
      if (isMap(node)) {
        const { key, value } = item as { key: unknown; value: unknown };
        if (keys && isScalar(key)) {
          const name = String(key.value);
          if (keys.has(name))
            throw new YamlTextError(`the key '${name.slice(0, 100)}' is given twice`);
          keys.add(name);
        }
        total += count(key, depth + 1) + count(value, depth + 1);
      } else total += count(item, depth + 1);
      if (total > limit)
        throw new YamlTextError(
          `its aliases expand it to more than ${limit} values, ten for each of its characters`,
        );
    }
    counting.delete(node);
    counted.set(node, total);
    return total;
  };
  return count(document.contents, 0);
}

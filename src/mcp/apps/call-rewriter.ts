/**
 * The bridge script Portico puts first into an upstream app's HTML.
 *
 * An app calls its backend tools by their upstream names (`get-time`), which mean nothing at the
 * gateway: two upstreams may both have one. The script wraps the app's `window.parent` so that an
 * outgoing `tools/call` for one of its own gateway's tools goes out as `<tool_hash>_<name>`, which
 * Portico routes to that gateway. Everything else passes unchanged. `MessageEvent.source` reports
 * the wrapper for messages from the real parent, so apps that check where a message came from (as
 * the ext-apps `App` does) still recognise their host.
 *
 * The script is fixed text; the only data in it is the name-to-hash table, as JSON with every
 * character that could end the script element escaped. It never evaluates anything it receives.
 */
const SCRIPT = `(function (pairs) {
  'use strict';
  var hashes = new Map(pairs);
  var realParent = window.parent;
  if (!realParent || realParent === window) return;
  function rewrite(message) {
    if (!message || typeof message !== 'object' || message.method !== 'tools/call') return message;
    var params = message.params;
    if (!params || typeof params.name !== 'string' || !hashes.has(params.name)) return message;
    var copy = Object.assign({}, message);
    copy.params = Object.assign({}, params, { name: hashes.get(params.name) + '_' + params.name });
    return copy;
  }
  var wrapper = {
    postMessage: function (message) {
      var args = Array.prototype.slice.call(arguments);
      args[0] = rewrite(message);
      return realParent.postMessage.apply(realParent, args);
    }
  };
  ['closed', 'frames', 'length', 'location', 'opener', 'parent', 'self', 'top', 'window'].forEach(
    function (name) {
      Object.defineProperty(wrapper, name, {
        get: function () { return realParent[name]; }
      });
    }
  );
  ['blur', 'close', 'focus'].forEach(function (name) {
    wrapper[name] = function () { return realParent[name](); };
  });
  Object.defineProperty(window, 'parent', {
    configurable: true,
    enumerable: true,
    get: function () { return wrapper; }
  });
  var source = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'source');
  if (source && source.get) {
    Object.defineProperty(MessageEvent.prototype, 'source', {
      configurable: true,
      enumerable: source.enumerable,
      get: function () {
        var value = source.get.call(this);
        return value === realParent ? wrapper : value;
      }
    });
  }
})(__PAIRS__);`;

/** JSON that is safe inside an HTML `<script>` element: nothing in it can close the element. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The script's source for a gateway's app-callable tools (upstream name to tool hash). */
export function callRewriterSource(hashes: ReadonlyMap<string, string>): string {
  return SCRIPT.replace('__PAIRS__', () => scriptJson([...hashes]));
}

/** The `<script>` element to inject. */
export function callRewriterScript(hashes: ReadonlyMap<string, string>): string {
  return `<script data-portico="call-rewriter">${callRewriterSource(hashes)}</script>`;
}

const SKIPPABLE = String.raw`(?:\s|<!--[\s\S]*?-->)*`;
const ATTRIBUTES = String.raw`(?:\s(?:[^>"']|"[^"]*"|'[^']*')*)?`;
/** What may come before the first script without changing how the page parses: BOM, doctype, `<html>`, `<head>`. */
const PROLOGUE = new RegExp(
  String.raw`^\uFEFF?${SKIPPABLE}(?:<!doctype${ATTRIBUTES}>)?${SKIPPABLE}(?:<html${ATTRIBUTES}>)?${SKIPPABLE}(?:<head${ATTRIBUTES}>)?`,
  'i',
);

/**
 * Puts `snippet` before anything the page runs: after the doctype (a script before it would put
 * the page in quirks mode) and the opening `<html>` and `<head>` tags where they come first.
 */
export function injectFirst(html: string, snippet: string): string {
  const prologue = PROLOGUE.exec(html)?.[0] ?? '';
  return `${prologue}${snippet}${html.slice(prologue.length)}`;
}

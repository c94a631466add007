import { TestEnvironment } from 'jest-environment-node';

/**
 * Jest 29's node environment gives each test file a fresh realm whose `Symbol` lacks the
 * `Symbol.dispose` and `Symbol.asyncDispose` that Node adds to its own; playwright-core relies on
 * them (without them a click inside an iframe retries until it times out).
 */
export default class PorticoTestEnvironment extends TestEnvironment {
  constructor(...args: ConstructorParameters<typeof TestEnvironment>) {
    super(...args);
    const realmSymbol = this.global.Symbol as unknown as Record<string, symbol>;
    for (const name of ['dispose', 'asyncDispose'] as const) {
      const symbol = (Symbol as unknown as Record<string, symbol | undefined>)[name];
      if (symbol && !realmSymbol[name]) Object.defineProperty(realmSymbol, name, { value: symbol });
    }
  }
}

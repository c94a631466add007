'use strict';
const { Script } = require('node:vm');
const { default: Runtime } = require('jest-runtime');
// Jest's own, wherever npm put it.
const { handlePotentialSyntaxError } = require(
  require.resolve('@jest/transform', { paths: [require.resolve('jest-runtime')] }),
);

/** Source that may call `import()`: PGlite's import of Node's modules, the ESM-only packages. */
const DYNAMIC_IMPORT = /\bimport\s*\(/;

/**
 * Jest's runtime, with one change to how it compiles a module. Under --experimental-vm-modules
 * Node keeps the `import()` callback of every compiled script for as long as the process lives,
 * and with it, through Jest's callback, the test file's whole module graph: each file left 60-90 MB
 * behind that no collection freed, and a worker grew until it was replaced. Here only a module
 * whose source can call `import()` gets the callback (114 of the 3,558 modules an end-to-end file
 * of policies loads), and the callback reaches the runtime through a WeakRef, so that it keeps no
 * module of the file alive. A module without the callback that calls `import()` all the same fails
 * with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING.
 */
class PorticoRuntime extends Runtime {
  createScriptFromCode(scriptSource, filename) {
    const scriptFilename = this._resolver.isCoreModule(filename)
      ? `jest-nodejs-core-${filename}`
      : filename;
    try {
      return new Script(this.wrapCodeInModuleWrapper(scriptSource), {
        columnOffset: this._fileTransforms.get(filename)?.wrapperLength,
        displayErrors: true,
        filename: scriptFilename,
        ...(DYNAMIC_IMPORT.test(scriptSource)
          ? { importModuleDynamically: this.importer(scriptFilename) }
          : {}),
      });
    } catch (error) {
      throw handlePotentialSyntaxError(error);
    }
  }

  /** Jest's `import()` for the module `referrer`, holding this runtime only weakly. */
  importer(referrer) {
    const runtime = new WeakRef(this);
    return async (specifier) => {
      const self = runtime.deref();
      const context = self?._environment.getVmContext?.();
      if (!self || !context) throw new Error(`import('${specifier}') after its test file ended`);
      const module = await self.resolveModule(specifier, referrer, context);
      return self.linkAndEvaluateModule(module);
    };
  }
}

module.exports = PorticoRuntime;

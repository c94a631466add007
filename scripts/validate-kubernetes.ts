import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

// Offline schema validation of the Kustomize overlays, as kubeconform -strict does with a schema
// registry, from two npm packages generated from the Kubernetes OpenAPI document (kubernetes-models)
// and the Prometheus Operator CRDs (@kubernetes-models/prometheus-operator):
//   1. each object is validated by the package's JSON Schema validator (types, formats such as
//      quantities and int32, enums, required fields);
//   2. the same object, as a TypeScript literal of the package's interface for its kind, goes
//      through the type checker, whose excess-property check refuses unknown fields (a misspelt
//      `readinesProbe` passes the OpenAPI schemas, which allow additional properties).
// Usage: ts-node scripts/validate-kubernetes.ts [overlay directory…] (default: every overlay).

const ROOT = join(__dirname, '..');
export const OVERLAYS = join(ROOT, 'docker', 'kubernetes', 'overlays');

export interface Manifest {
  apiVersion?: unknown;
  kind?: unknown;
  metadata?: { name?: unknown };
}

interface Model {
  /** The module of the kind in its package, also the module of its TypeScript interface. */
  module: string;
  kind: string;
}

/** The object's model, or null when neither package knows its apiVersion and kind. */
function modelOf(manifest: Manifest): Model | null {
  const { apiVersion, kind } = manifest;
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || !/^\w+$/.test(kind))
    return null;
  if (!/^([a-z0-9.-]+\/)?v\d+\w*$/.test(apiVersion)) return null;
  const candidates = apiVersion.endsWith('.coreos.com/v1')
    ? [`@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`]
    : [`kubernetes-models/${apiVersion}/${kind}`];
  for (const module of candidates) {
    try {
      require.resolve(module);
      return { module, kind };
    } catch {
      // Not this package; try the next.
    }
  }
  return null;
}

function describe(manifest: Manifest): string {
  const name = typeof manifest.metadata?.name === 'string' ? manifest.metadata.name : '?';
  return `${String(manifest.kind)} ${name}`;
}

/** Every schema violation in a multi-document YAML stream, as `Kind name: message` lines. */
export function validateManifests(yamlText: string): string[] {
  const violations: string[] = [];
  const manifests: { manifest: Manifest; model: Model }[] = [];
  for (const document of parseAllDocuments(yamlText)) {
    if (document.errors.length > 0) {
      violations.push(...document.errors.map((error) => `YAML: ${error.message}`));
      continue;
    }
    const manifest = document.toJS() as Manifest | null;
    if (manifest === null) continue;
    const model = modelOf(manifest);
    if (!model) {
      violations.push(`${describe(manifest)}: no schema for ${String(manifest.apiVersion)}`);
      continue;
    }
    manifests.push({ manifest, model });
    violations.push(...validateValues(manifest, model));
  }
  violations.push(...validateFields(manifests));
  return violations;
}

/** The package's JSON Schema validation of one object. */
function validateValues(manifest: Manifest, model: Model): string[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const exports = require(model.module) as Record<
    string,
    new (data: unknown) => { validate(): void }
  >;
  const Class = exports[model.kind];
  if (!Class) return [`${describe(manifest)}: ${model.module} has no ${model.kind}`];
  try {
    new Class(manifest).validate();
    return [];
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return message.split(/,\s*(?=data\/)/).map((part) => `${describe(manifest)}: ${part}`);
  }
}

/** Unknown and mistyped fields, by type-checking each object against its kind's interface. */
function validateFields(manifests: { manifest: Manifest; model: Model }[]): string[] {
  if (manifests.length === 0) return [];
  const file = join(ROOT, '__kubernetes_manifests__.ts');
  const source = manifests
    .map(
      ({ manifest, model }, index) =>
        `import type { I${model.kind} as T${index} } from '${model.module}';\n` +
        `export const m${index}: T${index} = ${JSON.stringify(manifest, null, 1)};\n`,
    )
    .join('');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
    module: ts.ModuleKind.Node16,
    moduleResolution: ts.ModuleResolutionKind.Node16,
    target: ts.ScriptTarget.ES2022,
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (name) => (name === file ? source : readFile(name));
  host.fileExists = (name) => name === file || fileExists(name);
  host.getSourceFile = (name, language) =>
    name === file ? ts.createSourceFile(name, source, language) : getSourceFile(name, language);
  const program = ts.createProgram([file], options, host);
  const lineStarts = manifests.map((_, index) => source.indexOf(`export const m${index}:`));
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
    const at = diagnostic.file?.fileName === file ? (diagnostic.start ?? -1) : -1;
    const index = lineStarts.findLastIndex((start) => start <= at);
    const where = index >= 0 ? describe(manifests[index]!.manifest) : 'type check';
    return `${where}: ${message}`;
  });
}

/** `kubectl kustomize` of one overlay directory. */
export function renderOverlay(directory: string): string {
  return execFileSync('kubectl', ['kustomize', directory], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function overlayDirectories(): string[] {
  return readdirSync(OVERLAYS)
    .map((name) => join(OVERLAYS, name))
    .filter((directory) => existsSync(join(directory, 'kustomization.yaml')));
}

function main(): void {
  const directories = process.argv.length > 2 ? process.argv.slice(2) : overlayDirectories();
  let failed = false;
  for (const directory of directories) {
    const label = relative(ROOT, directory) || directory;
    let rendered: string;
    try {
      rendered = renderOverlay(directory);
    } catch (error) {
      const stderr = ((error as { stderr?: string }).stderr ?? String(error)).trim();
      const hint = stderr.includes('unknown field "components"')
        ? ' (this kubectl’s Kustomize is too old: the overlays need Kustomize v4 or later)'
        : '';
      console.error(`${label}: kubectl kustomize failed: ${stderr}${hint}`);
      failed = true;
      continue;
    }
    const violations = validateManifests(rendered);
    const count = parseAllDocuments(rendered).length;
    if (violations.length === 0) {
      console.log(`${label}: ${count} objects valid`);
    } else {
      failed = true;
      for (const violation of violations) console.error(`${label}: ${violation}`);
    }
  }
  if (failed) process.exitCode = 1;
}

if (require.main === module) main();

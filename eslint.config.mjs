import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The order of the MCP folders (DESIGN §5), from the edge down: a folder may import those after
 * it, never one before it. Folders on one line are side by side and do not import each other.
 * `state/` holds the entities of what MCP keeps (sessions, their stream events, promotions).
 */
const MCP_ORDER = [
  ['http'],
  ['sessions'],
  ['core'],
  ['listen'],
  ['tasks'],
  ['search', 'apps', 'skills'],
  ['guard'],
  ['directory'],
  ['streams'],
  ['protocol'],
  ['state'],
];

/** An import of one of `folders` by a relative path from anywhere inside src/mcp/<folder>/. */
const toFolder = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

/** The patterns of the MCP order for files in src/mcp/<folder>/, by folder. */
const mcpPatterns = new Map(
  MCP_ORDER.flatMap((level, index) => {
    const above = MCP_ORDER.slice(0, index).flat();
    return level.map((folder) => {
      const beside = level.filter((other) => other !== folder);
      return [
        folder,
        [
          ...(above.length > 0
            ? [
                {
                  regex: toFolder(above),
                  message: 'An import that runs back up the MCP folders (DESIGN §5).',
                },
              ]
            : []),
          ...(beside.length > 0
            ? [
                {
                  regex: toFolder(beside),
                  message: 'Folders side by side do not import each other.',
                },
              ]
            : []),
        ],
      ];
    });
  }),
);

/**
 * The order of src/ (DESIGN §5), from the edge down: the files of a folder may import those after
 * it, never one before it; folders on one line are side by side and do not import each other.
 * `(root)` is the files directly in src/ (main, the app module and factory). What two levels
 * share has a folder of its own below both (`sync-report`, `pin-state`, `virtual-names`). The
 * upstream client sits below sync and REST invoke, which call it (DESIGN §5: "Sync, REST invoke
 * and the CLI use the same client"), and above the auth, events and settings it reads.
 *
 * Entities and domain exceptions (`*.entity.ts`, `*.exception.ts`) are the schema and the error
 * vocabulary: any folder may import them, and their own imports follow their folder's place.
 */
const SRC_ORDER = [
  ['cli'],
  ['(root)'],
  ['oauth'],
  ['admin'],
  ['config-as-code', 'policy-dry-run'],
  ['mcp'],
  ['mcp-registry'],
  ['health'],
  ['servers'],
  ['tokens'],
  ['gateways'],
  ['sync'],
  ['consolidated-tools'],
  ['pinning'],
  ['skills'],
  ['prompts'],
  ['resources'],
  ['tools'],
  ['sync-report', 'pin-state'],
  ['rate-limits'],
  ['policies'],
  ['audit'],
  ['approvals'],
  ['upstream'],
  ['embeddings'],
  ['teams'],
  ['users'],
  ['auth'],
  ['scanner'],
  ['events'],
  ['database'],
  ['virtual-names'],
  ['observability'],
  ['config'],
  ['common'],
];

const SRC = join(import.meta.dirname, 'src');
const RECORD = '(?!.*\\.(?:entity|exception)$)';
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const units = SRC_ORDER.flat();

/** The level of a folder of src (its path parts): its top folder, or `(root)` for src itself. */
function unitOf(parts) {
  const unit = parts[0] ?? '(root)';
  if (!units.includes(unit)) throw new Error(`eslint.config.mjs: place src/${unit} in SRC_ORDER`);
  return unit;
}

/** A regex for an import, from a file in folder `from`, of anything in unit `to` but its records. */
function importOf(from, to) {
  const up = from.length === 0 ? '\\./' : `(?:\\.\\./){${from.length}}`;
  if (to === '(root)') return `^${up}[^./][^/]*$`;
  return `^${up}${escape(to)}(?:/|$)${RECORD}`;
}

function srcFolders(parts = []) {
  const entries = readdirSync(join(SRC, ...parts), { withFileTypes: true });
  return [
    parts,
    ...entries
      .filter((entry) => entry.isDirectory())
      .flatMap((entry) => srcFolders([...parts, entry.name])),
  ];
}

/** The patterns for the files of one folder of src. */
function srcPatterns(parts) {
  const unit = unitOf(parts);
  const index = SRC_ORDER.findIndex((level) => level.includes(unit));
  const beside = SRC_ORDER[index].filter((other) => other !== unit);
  const patterns = [
    ...SRC_ORDER.slice(0, index)
      .flat()
      .filter((above) => !(unit === 'upstream' && above === 'mcp'))
      .map((above) => ({
        regex: importOf(parts, above),
        message: `An import that runs back up the folders of src (DESIGN §5): ${above} is above ${unit}.`,
      })),
    ...beside.map((other) => ({
      regex: importOf(parts, other),
      message: `${unit} and ${other} are side by side and do not import each other.`,
    })),
    ...(unit === 'upstream'
      ? [
          {
            regex: importOf(parts, 'mcp'),
            message:
              'src/upstream never imports src/mcp: the arrow points the other way (DESIGN §5).',
          },
        ]
      : [
          {
            group: ['**/upstream/upstream-connector.service'],
            message: 'Upstreams are reached through UpstreamClient; the connector is below it.',
          },
        ]),
  ];
  if (parts[0] !== 'mcp' || parts.length === 1) return patterns;
  // A folder of src/mcp outside the order would import, and be imported, unchecked.
  if (!mcpPatterns.has(parts[1]))
    throw new Error(`src/mcp/${parts[1]} has no place in MCP_ORDER (eslint.config.mjs)`);
  return [...mcpPatterns.get(parts[1]), ...patterns];
}

const restrict = (patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

const srcZones = [
  ...srcFolders().map((parts) => ({
    files: [['src', ...parts, '*.ts'].join('/')],
    ignores: ['**/*.spec.ts'],
    rules: restrict(srcPatterns(parts)),
  })),
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      'test/artifacts/**',
      '**/*.mjs',
      '**/*.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  ...srcZones,
  // Issue 32's bound: no file of the MCP core or the upstream layer past 300 lines, specs included.
  {
    files: ['src/mcp/**/*.ts', 'src/upstream/**/*.ts'],
    rules: { 'max-lines': ['error', { max: 300 }] },
  },
);

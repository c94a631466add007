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
  ['search', 'apps'],
  ['directory'],
  ['streams'],
  ['protocol'],
  ['state'],
];

/** An import of one of `folders` by a relative path from anywhere inside src/mcp/<folder>/. */
const toFolder = (folders) => `^(\\.\\./)+(${folders.join('|')})(/|$)`;

const mcpZones = MCP_ORDER.map((level, index) => {
  const above = MCP_ORDER.slice(0, index).flat();
  const beside = level.length > 1 ? level : [];
  return {
    files: level.map((folder) => `src/mcp/${folder}/**/*.ts`),
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            ...(above.length > 0
              ? [
                  {
                    regex: toFolder(above),
                    message: 'An import that runs back up the MCP folders (DESIGN §5).',
                  },
                ]
              : []),
            ...beside.map((folder) => ({
              regex: toFolder(beside.filter((other) => other !== folder)),
              message: 'Folders side by side do not import each other.',
            })),
          ].filter(
            (pattern, index, all) =>
              all.findIndex((other) => other.regex === pattern.regex) === index,
          ),
        },
      ],
    },
  };
});

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
  ...mcpZones,
  {
    files: ['src/upstream/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(\\.\\./)+mcp(/|$)',
              message:
                'src/upstream never imports src/mcp: the arrow points the other way (DESIGN §5).',
            },
          ],
        },
      ],
    },
  },
);

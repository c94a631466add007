import { lexicalFields, oneLine, providerText, semanticText, splitDescription } from './tool-text';

const tool = {
  name: 'gh-create_issue',
  title: 'Create issue',
  description: '**Create** a new issue in a repository. Use `update_issue` for existing ones.',
  inputSchema: {
    type: 'object' as const,
    properties: { repo: { type: 'string', description: 'owner/name' }, title: { type: 'string' } },
  },
};

describe('tool text', () => {
  it('splits a description after its first sentence, without markdown emphasis', () => {
    expect(splitDescription(tool.description)).toEqual({
      summary: 'Create a new issue in a repository',
      details: 'Use update_issue for existing ones.',
    });
    expect(splitDescription('No full stop here')).toEqual({
      summary: 'No full stop here',
      details: '',
    });
  });

  it('shows one line, cut with an ellipsis', () => {
    expect(oneLine(tool.description)).toBe('Create a new issue in a repository');
    expect(oneLine('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(oneLine(undefined)).toBe('');
  });

  it('weights name, summary, details and arguments for BM25', () => {
    expect(lexicalFields(tool)).toEqual([
      { text: 'gh-create_issue', weight: 3 },
      { text: 'Create a new issue in a repository', weight: 2 },
      { text: 'Use update_issue for existing ones.', weight: 0.5 },
      { text: 'Create issue', weight: 2 },
      { text: 'repo', weight: 1 },
      { text: 'owner/name', weight: 0.5 },
      { text: 'title', weight: 1 },
    ]);
  });

  it('embeds name, title and summary locally, and the start of the description remotely', () => {
    expect(semanticText(tool)).toBe(
      'gh-create_issue. Create issue. Create a new issue in a repository',
    );
    expect(providerText(tool)).toBe(
      'gh-create_issue\nCreate issue\n**Create** a new issue in a repository. Use `update_issue` for existing ones.',
    );
  });
});

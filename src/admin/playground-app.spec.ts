import { appFrameCsp, uiResourceUri } from './playground-app';
import { inputQuestions, inputResponses } from './playground-form';

describe('appFrameCsp', () => {
  it('maps the declared domains to their directives, and allows nothing else', () => {
    const csp = appFrameCsp({
      csp: {
        connectDomains: ['https://api.example'],
        resourceDomains: ['https://cdn.example'],
        frameDomains: [],
      },
    });
    expect(csp.split('; ')).toEqual([
      "default-src 'none'",
      "script-src 'unsafe-inline' https://cdn.example",
      "style-src 'unsafe-inline' https://cdn.example",
      'img-src data: https://cdn.example',
      'font-src data: https://cdn.example',
      'media-src data: https://cdn.example',
      'connect-src https://api.example',
      "frame-src 'none'",
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'self'",
      'sandbox allow-scripts',
    ]);
  });

  it('drops a declared domain that would break out of its directive', () => {
    const csp = appFrameCsp({
      csp: {
        connectDomains: ["https://a.example; script-src 'unsafe-eval'", 'https://ok.example'],
      },
    });
    expect(csp).toContain('connect-src https://ok.example;');
    expect(csp).not.toContain('unsafe-eval');
    expect(appFrameCsp(undefined)).toContain("connect-src 'none'");
  });

  it('finds a UI only where the listed definition gives a ui:// resource', () => {
    const tool = { name: 't', inputSchema: { type: 'object' as const } };
    expect(uiResourceUri({ ...tool, _meta: { ui: { resourceUri: 'ui://x/y.html' } } })).toBe(
      'ui://x/y.html',
    );
    expect(uiResourceUri({ ...tool, _meta: { ui: { resourceUri: 'https://x/y' } } })).toBeNull();
    expect(uiResourceUri(tool)).toBeNull();
  });
});

describe('inputQuestions', () => {
  const round = {
    approval: {
      method: 'elicitation/create',
      params: {
        mode: 'form',
        message: 'May I?',
        requestedSchema: { type: 'object', properties: { remember: { type: 'boolean' } } },
      },
    },
    sample: { method: 'sampling/createMessage', params: { messages: [] } },
  };

  it('asks form elicitations with their fields, and only declines what it cannot answer', () => {
    const questions = inputQuestions(round);
    expect(questions.map((q) => [q.key, q.answerable, q.fields?.map((f) => f.name)])).toEqual([
      ['approval', true, ['input0.remember']],
      ['sample', false, undefined],
    ]);
    expect(questions[1]!.message).toContain('sampling/createMessage');
    expect(inputResponses(questions, true, { 'input0.remember': 'true' })).toEqual({
      approval: { action: 'accept', content: { remember: true } },
      sample: { action: 'decline' },
    });
    expect(inputResponses(questions, false, {})).toEqual({
      approval: { action: 'decline' },
      sample: { action: 'decline' },
    });
    expect(inputQuestions('not an object')).toEqual([]);
  });
});

import { redirectUriProblem } from './redirect-uri';

describe('redirectUriProblem', () => {
  it.each([
    'https://app.example.com/callback',
    'http://127.0.0.1:33418/callback',
    'http://localhost/cb',
    'cursor://anysphere.cursor-retrieval/oauth/callback',
  ])('accepts %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
  });

  it.each([
    'http://app.example.com/callback',
    'javascript:alert(1)',
    'data:text/html,x',
    'https://app.example.com/cb#frag',
    'https://app.example.com/cb#',
    'https://app.example.com@evil.example/cb',
    'https://user:pass@app.example.com/cb',
    'not a url',
  ])('refuses %s', (uri) => {
    expect(redirectUriProblem(uri)).not.toBeNull();
  });
});

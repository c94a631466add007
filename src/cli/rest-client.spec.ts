import { porticoUrl } from './rest-client';

describe('porticoUrl', () => {
  it('takes --url, else PORTICO_URL', () => {
    expect(porticoUrl('http://a.example:1/x/', { PORTICO_URL: 'http://b.example' })).toBe(
      'http://a.example:1/x',
    );
    expect(porticoUrl(undefined, { PORTICO_URL: 'https://b.example/', HOST: '10.0.0.5' })).toBe(
      'https://b.example',
    );
  });

  it('else reaches this host’s Portico where HOST and PORT make it listen', () => {
    expect(porticoUrl(undefined, {})).toBe('http://127.0.0.1:3000');
    expect(porticoUrl(undefined, { PORT: '8080', HOST: '0.0.0.0' })).toBe('http://127.0.0.1:8080');
    expect(porticoUrl(undefined, { HOST: '::' })).toBe('http://127.0.0.1:3000');
    expect(porticoUrl(undefined, { HOST: '10.0.0.5' })).toBe('http://10.0.0.5:3000');
    expect(porticoUrl(undefined, { HOST: '::1', PORT: '3100' })).toBe('http://[::1]:3100');
    expect(porticoUrl(undefined, { HOST: '[::1]' })).toBe('http://[::1]:3000');
    expect(porticoUrl(undefined, { HOST: 'portico.internal' })).toBe(
      'http://portico.internal:3000',
    );
  });
});

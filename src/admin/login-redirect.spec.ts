import { loginPath, safeNext } from './login-redirect';

describe('login redirects', () => {
  it('returns to admin pages only', () => {
    expect(safeNext('/admin/tools?page=2&q=time')).toBe('/admin/tools?page=2&q=time');
    for (const next of [
      undefined,
      '',
      'https://evil.example/admin',
      '//evil.example/admin',
      '/admin/../api',
      '/admin\\@evil',
      '/administrator',
      '/admin/login',
      '/admin/logout',
      '/oauth/consented',
      '/oauth/token',
      ['/admin/tools'],
    ]) {
      expect(safeNext(next)).toBe('/admin');
    }
  });

  it('returns to the OAuth consent page with its signed request', () => {
    expect(safeNext('/oauth/consent?request=eyJjIjoiYSJ9.mac_-x')).toBe(
      '/oauth/consent?request=eyJjIjoiYSJ9.mac_-x',
    );
  });

  it('remembers the requested page in the login link', () => {
    expect(loginPath('/admin/tools?page=2')).toBe('/admin/login?next=%2Fadmin%2Ftools%3Fpage%3D2');
    expect(loginPath('/admin')).toBe('/admin/login');
  });
});

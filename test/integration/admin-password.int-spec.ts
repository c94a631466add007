import { AuditTrail } from '../../src/audit/audit-trail.service';
import { LoginAudit } from '../../src/audit/login-audit';
import { BreakGlassAdmin } from '../../src/auth/break-glass-admin';
import { LoginThrottle } from '../../src/auth/login-throttle';
import { PasswordLogin } from '../../src/auth/password-login';
import { InProcessEventBus } from '../../src/events/in-process-event-bus';
import { loadConfig } from '../../src/config/load-config';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { tempDataDir } from '../support/temp-dir';

describe('the generated admin password', () => {
  let db: TestDataSource;
  let admin: BreakGlassAdmin;
  let login: PasswordLogin;
  let printed: string[];
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    db = await openTestDataSource();
    const config = loadConfig({ DATA_DIR: tempDataDir(), LOG_LEVEL: 'error' });
    admin = new BreakGlassAdmin(db.dataSource, config, new InProcessEventBus());
    login = new PasswordLogin(
      db.dataSource,
      new LoginThrottle(db.dataSource),
      new LoginAudit(new AuditTrail(db.dataSource, config, { value: 'test' })),
      config,
    );
    printed = [];
    spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      printed.push(String(chunk));
      return true;
    });
  });

  afterAll(async () => {
    spy.mockRestore();
    await db.close();
  });

  it('is printed once on stderr whatever LOG_LEVEL says, and only its hash is stored', async () => {
    await admin.onApplicationBootstrap();
    const lines = printed.filter((line) => line.includes('Generated admin password'));
    expect(lines).toHaveLength(1);
    const password = /: (\S+)\n$/.exec(lines[0]!)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(20);
    const rows: { id: string; password_hash: string; role: string }[] = await db.dataSource.query(
      'SELECT id, password_hash, role FROM app_user',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.role).toBe('admin');
    expect(rows[0]!.password_hash).not.toContain(password);
    expect(await login.authenticate('admin', password, '127.0.0.1')).toBe(rows[0]!.id);
  });

  it('is not printed again on the next start', async () => {
    printed.length = 0;
    await admin.onApplicationBootstrap();
    expect(printed.join('')).not.toContain('Generated admin password');
  });
});

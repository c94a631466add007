import { AdminUsersService } from '../../src/auth/admin-users.service';
import { LoginThrottle } from '../../src/auth/login-throttle';
import { loadConfig } from '../../src/config/app-config';
import { openTestDataSource, type TestDataSource } from '../support/test-data-source';
import { tempDataDir } from '../support/temp-dir';

describe('the generated admin password', () => {
  let db: TestDataSource;
  let users: AdminUsersService;
  let printed: string[];
  let spy: jest.SpyInstance;

  beforeAll(async () => {
    db = await openTestDataSource();
    const config = loadConfig({ DATA_DIR: tempDataDir(), LOG_LEVEL: 'error' });
    users = new AdminUsersService(db.dataSource, config, new LoginThrottle(db.dataSource));
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
    await users.onApplicationBootstrap();
    const lines = printed.filter((line) => line.includes('Generated admin password'));
    expect(lines).toHaveLength(1);
    const password = /: (\S+)\n$/.exec(lines[0]!)![1]!;
    expect(password.length).toBeGreaterThanOrEqual(20);
    const rows: { password_hash: string }[] = await db.dataSource.query(
      'SELECT password_hash FROM admin_user',
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]!.password_hash).not.toContain(password);
    await expect(users.authenticate('admin', password, '127.0.0.1')).resolves.toBe('admin');
  });

  it('is not printed again on the next start', async () => {
    printed.length = 0;
    await users.onApplicationBootstrap();
    expect(printed.join('')).not.toContain('Generated admin password');
  });
});

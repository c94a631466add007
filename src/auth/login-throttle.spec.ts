import { AuthException } from './auth.exception';
import { LoginThrottle } from './login-throttle';

describe('LoginThrottle', () => {
  it('refuses after five failures within the window, and forgives after it', () => {
    const throttle = new LoginThrottle();
    const start = 1_000_000;
    for (let i = 0; i < 5; i++) {
      throttle.assertAllowed('ip\0admin', start + i);
      throttle.recordFailure('ip\0admin', start + i);
    }
    expect(() => throttle.assertAllowed('ip\0admin', start + 10)).toThrow(AuthException);
    expect(() => throttle.assertAllowed('other\0admin', start + 10)).not.toThrow();
    expect(() => throttle.assertAllowed('ip\0admin', start + 15 * 60 * 1000 + 10)).not.toThrow();
  });

  it('clears failures on success', () => {
    const throttle = new LoginThrottle();
    for (let i = 0; i < 4; i++) throttle.recordFailure('k');
    throttle.recordSuccess('k');
    throttle.recordFailure('k');
    expect(() => throttle.assertAllowed('k')).not.toThrow();
  });
});

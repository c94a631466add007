import { DatabaseTimeoutError, fromDatabase, isDatabaseUnavailable } from './database-errors';

function withCode(code: string, message = 'x'): Error {
  return Object.assign(new Error(message), { code });
}

describe('isDatabaseUnavailable', () => {
  it.each([
    ['terminated by an administrator', withCode('57P01')],
    ['starting up', withCode('57P03')],
    ['too many connections', withCode('53300')],
    ['a statement_timeout', withCode('57014')],
    ['a connection exception', withCode('08006')],
    [
      'ALLOW_CONNECTIONS false',
      withCode('55000', 'database "x" is not currently accepting connections'),
    ],
    ['a broken connection', new Error('Connection terminated unexpectedly')],
    ['a pool that could not connect in time', new Error('timeout exceeded when trying to connect')],
    ['a query that outlived query_timeout', new Error('Query read timeout')],
    ['a readiness probe that waited too long', new DatabaseTimeoutError('readiness', 800)],
    ['a refused connection of a database client', fromDatabase(withCode('ECONNREFUSED'))],
  ])('says yes for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
  });

  it('looks through what TypeORM, causes and AggregateErrors wrap', () => {
    expect(isDatabaseUnavailable({ message: 'query failed', driverError: withCode('57P01') })).toBe(
      true,
    );
    expect(isDatabaseUnavailable(new Error('outer', { cause: withCode('08001') }))).toBe(true);
    const refused = fromDatabase(
      Object.assign(new AggregateError([withCode('ECONNREFUSED')], ''), { code: 'ECONNREFUSED' }),
    );
    expect(isDatabaseUnavailable(refused)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505')],
    ['a generic state that is not about connections', withCode('55000', 'something else')],
    ['a refused connection of anything else (an upstream)', withCode('ECONNREFUSED')],
    ['a bug', new TypeError('x is undefined')],
    ['nothing', undefined],
    ['a string', 'Connection terminated'],
  ])('says no for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
  });

  it('stops on a cycle of causes', () => {
    const a: { message: string; cause?: unknown } = { message: 'a' };
    a.cause = { message: 'b', cause: a };
    expect(isDatabaseUnavailable(a)).toBe(false);
  });
});

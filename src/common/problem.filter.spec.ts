import { DomainException } from './domain.exception';
import { registerProblemStatuses } from './problem-statuses';
import { toProblem } from './problem.filter';

enum SampleErrorCode {
  Missing = 'sample.missing',
  Taken = 'sample.taken',
}

class SampleException extends DomainException<SampleErrorCode> {}
class UnregisteredException extends DomainException<SampleErrorCode> {}

registerProblemStatuses(SampleException, {
  [SampleErrorCode.Missing]: 404,
  [SampleErrorCode.Taken]: 409,
});

describe('toProblem', () => {
  it('maps a registered code to its status, with the details as members', () => {
    const problem = toProblem(
      new SampleException(SampleErrorCode.Taken, 'The name is taken.', { name: 'a' }),
    );
    expect(problem).toEqual({
      type: 'urn:portico:problem:sample.taken',
      title: 'Conflict',
      status: 409,
      detail: 'The name is taken.',
      code: 'sample.taken',
      name: 'a',
    });
  });

  it('treats a domain exception nobody registered as an unexpected error', () => {
    const problem = toProblem(new UnregisteredException(SampleErrorCode.Missing, 'gone'));
    expect(problem.status).toBe(500);
    expect(problem.detail).toBe('An unexpected error occurred.');
  });
});

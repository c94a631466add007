import { createServer } from 'node:http';
import { type AddressInfo } from 'node:net';
import { DomainException } from './domain.exception';
import { registerProblemStatuses } from './problem-statuses';
import { sendProblem, toProblem } from './problem.filter';

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

describe('sendProblem', () => {
  it('cuts off an answer that has begun, which can no longer be a problem document', async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/csv' });
      response.write('occurredAt,kind\r\n');
      sendProblem(response, toProblem(new Error('the database went away')));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    // Without the cut the body never ended, and this read waited forever.
    const read = fetch(`http://127.0.0.1:${port}/`).then((response) => response.text());
    await expect(read).rejects.toThrow();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
});

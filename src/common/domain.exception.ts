/** A domain failure with a stable code; ProblemFilter maps the code to an HTTP status. */
export abstract class DomainException<Code extends string> extends Error {
  constructor(
    readonly code: Code,
    message: string,
    /** Extra members for the problem document, such as the clashing names. */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** `instanceof` on the generic class yields `DomainException<any>`; this keeps the code a string. */
export function isDomainException(error: unknown): error is DomainException<string> {
  return error instanceof DomainException;
}

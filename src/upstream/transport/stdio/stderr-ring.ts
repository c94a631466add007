/**
 * The last lines a process wrote to stderr, bounded in lines and in characters so that a chatty or
 * hostile process cannot grow Portico's memory.
 */
export class StderrRing {
  private readonly lines: string[] = [];
  private partial = '';

  constructor(
    private readonly maxLines = 200,
    private readonly maxLineLength = 1000,
  ) {}

  /** A chunk as it came from the pipe; lines may span chunks. */
  write(chunk: string, prefix = ''): void {
    const parts = (this.partial + chunk).split(/\r?\n/);
    this.partial = (parts.pop() ?? '').slice(0, this.maxLineLength);
    for (const line of parts) this.push(line, prefix);
  }

  /** Adds a line (or one of Portico's own: a start, an exit); blank ones are skipped. */
  push(line: string, prefix = ''): void {
    if (line.trim() === '') return;
    const clipped =
      line.length > this.maxLineLength ? `${line.slice(0, this.maxLineLength)}…` : line;
    this.lines.push(prefix + clipped);
    if (this.lines.length > this.maxLines) this.lines.splice(0, this.lines.length - this.maxLines);
  }

  /** The lines kept, oldest first. */
  tail(count = this.maxLines): string[] {
    return this.lines.slice(-count);
  }
}

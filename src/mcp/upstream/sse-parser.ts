/**
 * Incremental parser of a `text/event-stream` body: feed it chunks, get the `data` of each complete
 * event. Comments, `id`, `retry` and other fields are dropped; multi-line data is joined with \n.
 */
export class SseParser {
  private buffer = '';

  push(chunk: string): string[] {
    this.buffer += chunk;
    const events: string[] = [];
    for (;;) {
      const end = this.eventEnd();
      if (end === null) return events;
      const block = this.buffer.slice(0, end.index);
      this.buffer = this.buffer.slice(end.index + end.length);
      const data = block
        .split(/\r\n|\r|\n/)
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5));
      if (data.length > 0) events.push(data.join('\n'));
    }
  }

  private eventEnd(): { index: number; length: number } | null {
    const match = /\r\n\r\n|\n\n|\r\r/.exec(this.buffer);
    return match ? { index: match.index, length: match[0].length } : null;
  }
}

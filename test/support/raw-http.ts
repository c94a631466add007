import { connect, type Socket } from 'node:net';

/** A TCP connection to a loopback port, spoken to byte by byte as a slow or hostile client would. */
export interface RawConnection {
  socket: Socket;
  /** What the server has sent so far. */
  received(): string;
  /** Resolves when the connection closes, with how long it was open (ms). */
  closed: Promise<number>;
  /** Whether it has closed. */
  isClosed(): boolean;
}

/** Connects to 127.0.0.1:`port`; resolves once connected (or already closed by the server). */
export function rawConnection(port: number): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1');
    let received = '';
    let isClosed = false;
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (received += chunk));
    // A server that refuses the connection may reset it; that is a close like any other here.
    socket.on('error', () => undefined);
    const closed = new Promise<number>((done) =>
      socket.once('close', () => {
        isClosed = true;
        done(Date.now() - started);
      }),
    );
    socket.once('connect', () =>
      resolve({ socket, received: () => received, closed, isClosed: () => isClosed }),
    );
    socket.once('error', (error) => {
      if (!socket.connecting) return;
      reject(error);
    });
  });
}

/**
 * Writes `text` one byte every `everyMs`, until all of it is sent or the connection closes; the
 * timer is bounded by the text's length.
 */
export function trickle(connection: RawConnection, text: string, everyMs: number): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (connection.isClosed() || sent >= text.length) {
      clearInterval(timer);
      return;
    }
    connection.socket.write(text[sent]!);
    sent += 1;
  }, everyMs);
  connection.socket.once('close', () => clearInterval(timer));
}

/** The status line of the first response the server sent, e.g. `HTTP/1.1 408 Request Timeout`. */
export function statusLine(connection: RawConnection): string {
  return connection.received().split('\r\n')[0] ?? '';
}

import { connect, type Socket } from 'node:net';

/** One HTTP/1.1 answer read off a raw socket. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits what a server wrote on one connection into its answers (Content-Length framed). */
export function parseAnswers(text: string): RawAnswer[] {
  const answers: RawAnswer[] = [];
  let rest = text;
  while (rest.length > 0) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) throw new Error(`incomplete answer: ${JSON.stringify(rest)}`);
    const [statusLine = '', ...lines] = rest.slice(0, end).split('\r\n');
    const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
    if (!status) throw new Error(`not an HTTP answer: ${JSON.stringify(rest)}`);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    const bodyStart = end + 4;
    const body = Buffer.from(rest.slice(bodyStart), 'latin1').subarray(0, length).toString('utf8');
    answers.push({ status, headers, body });
    rest = rest.slice(bodyStart + length);
  }
  return answers;
}

/**
 * Opens a connection, writes `bytes`, and collects everything until the server closes it.
 * `halfClose` sends the client's FIN right after the bytes, as `nc` and some HTTP/1.0-era
 * clients do.
 */
export function exchange(
  origin: string,
  bytes: string | Buffer,
  { timeoutMs = 5000, halfClose = false }: { timeoutMs?: number; halfClose?: boolean } = {},
): Promise<{ text: string; closed: boolean }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket: Socket = connect(Number(url.port), url.hostname, () =>
      halfClose ? socket.end(bytes) : socket.write(bytes),
    );
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ text, closed: false });
    }, timeoutMs);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text, closed: true });
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error);
    });
  });
}

/** A JSON error answer has exactly one field, `error`, a non-empty string. */
export function errorOf(answer: RawAnswer | undefined): string | undefined {
  if (!answer?.headers['content-type']?.startsWith('application/json')) return undefined;
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  const keys = Object.keys(body);
  return keys.length === 1 && typeof body.error === 'string' ? body.error : undefined;
}

/**
 * Sends `head`, then body bytes as fast as the server takes them, up to `limit` bytes, and
 * reports how much it could send before the server closed the connection, and what it answered.
 */
export function flood(
  origin: string,
  head: string,
  limit: number,
): Promise<{ text: string; sent: number; closed: boolean }> {
  const url = new URL(origin);
  const chunk = Buffer.alloc(64 * 1024, 'a');
  return new Promise((resolve) => {
    let text = '';
    let sent = 0;
    let closed = false;
    const socket: Socket = connect(Number(url.port), url.hostname, () => {
      socket.write(head);
      pump();
    });
    socket.setEncoding('latin1');
    socket.on('data', (data: string) => {
      text += data;
    });
    const finish = () => resolve({ text, sent, closed });
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('error', () => {});
    function pump(): void {
      while (!socket.destroyed && sent < limit) {
        sent += chunk.length;
        if (!socket.write(chunk)) {
          socket.once('drain', pump);
          return;
        }
      }
      // Everything was taken: the server is still reading.
      if (sent >= limit) setTimeout(() => socket.destroy(), 200);
    }
  });
}

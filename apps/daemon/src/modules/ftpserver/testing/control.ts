/**
 * A bare FTP control connection for tests that must act at a chosen moment of a transfer (ABOR in
 * the middle of it, the session dropped under it), which lftp and curl cannot be made to do.
 */
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';

export class Control {
  private buf = '';
  private replies: string[] = [];
  private waiting: ((line: string) => void) | null = null;

  private constructor(readonly sock: Socket) {
    sock.setEncoding('utf8');
    sock.on('data', (c: string) => {
      this.buf += c;
      for (let nl = this.buf.indexOf('\n'); nl !== -1; nl = this.buf.indexOf('\n')) {
        const line = this.buf.slice(0, nl).replace(/\r$/, '');
        this.buf = this.buf.slice(nl + 1);
        // Only the last line of a reply ("123 text") ends it.
        if (!/^\d{3} /.test(line)) continue;
        const w = this.waiting;
        this.waiting = null;
        if (w) w(line);
        else this.replies.push(line);
      }
    });
    sock.on('error', () => undefined);
  }

  static async login(port: number, user: string, password: string): Promise<Control> {
    const sock = connect(port, '127.0.0.1');
    await once(sock, 'connect');
    const c = new Control(sock);
    expectCode(await c.reply(), 220);
    expectCode(await c.cmd(`USER ${user}`), 331);
    expectCode(await c.cmd(`PASS ${password}`), 230);
    expectCode(await c.cmd('TYPE I'), 200);
    return c;
  }

  /** The next reply's last line (10 s at most). */
  reply(): Promise<string> {
    const ready = this.replies.shift();
    if (ready !== undefined) return Promise.resolve(ready);
    return new Promise((resolve, reject) => {
      const t = setTimeout(() => reject(new Error('no reply within 10 s')), 10_000);
      this.waiting = (line) => {
        clearTimeout(t);
        resolve(line);
      };
    });
  }

  send(line: string): void {
    this.sock.write(`${line}\r\n`);
  }

  cmd(line: string): Promise<string> {
    this.send(line);
    return this.reply();
  }

  /** EPSV and the data connection to the announced port (made before the transfer command, as clients do). */
  async passive(): Promise<Socket> {
    const r = await this.cmd('EPSV');
    const m = /\(\|\|\|(\d+)\|\)/.exec(r);
    if (!m) throw new Error(`EPSV: ${r}`);
    const data = connect(Number(m[1]), '127.0.0.1');
    data.on('error', () => undefined);
    await once(data, 'connect');
    return data;
  }

  close(): void {
    this.sock.destroy();
  }
}

export function expectCode(line: string, code: number): void {
  if (!line.startsWith(`${code} `)) throw new Error(`expected ${code}, got: ${line}`);
}

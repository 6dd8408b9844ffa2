/**
 * A backend and clients in a process of their own, as a real load is: the serving side under test
 * keeps its threads to itself. The clients send requests back to back until stopped and count
 * every one that failed: an error (a reset connection…) or an answer that is not the backend's.
 * Kept-alive clients hold a connection each; the others open a new connection for every request.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface LoadCounts {
  ok: number;
  failed: number;
  /** Failures by error code or status. */
  why: Record<string, number>;
  /** Answered requests of the clients that connect anew for each. */
  fresh: number;
}

/** The child: plain JavaScript, run with `node -e`. */
const CHILD = `
const http = require('node:http');
const backend = http.createServer((req, res) => res.end('backend ' + req.url));
const counts = { ok: 0, failed: 0, why: {}, fresh: 0 };
let stopped = false;
let users = [];
const fail = (why) => { counts.failed++; counts.why[why] = (counts.why[why] || 0) + 1; };
function get(port, agent, path) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
}
async function user(port, agent, u) {
  while (!stopped) {
    try {
      const r = await get(port, agent, '/u' + u);
      if (r.status === 200 && r.body === 'backend /u' + u) {
        counts.ok++;
        if (!agent) counts.fresh++;
      } else fail('status ' + r.status);
    } catch (err) {
      fail(err.code || String(err));
    }
  }
}
const report = setInterval(() => process.send({ counts }), 50);
process.on('message', async (m) => {
  if (m.load) {
    const agent = new http.Agent({ keepAlive: true, maxSockets: m.load.kept });
    for (let u = 0; u < m.load.kept; u++) users.push(user(m.load.port, agent, u));
    for (let u = 0; u < m.load.fresh; u++) users.push(user(m.load.port, false, m.load.kept + u));
    users.push(Promise.resolve(agent));
  } else if (m.stop) {
    stopped = true;
    const all = await Promise.all(users);
    const agent = all[all.length - 1];
    if (agent) agent.destroy();
    clearInterval(report);
    process.send({ counts, done: true }, () => backend.close(() => process.exit(0)));
  }
});
backend.listen(0, '127.0.0.1', () => process.send({ backend: backend.address().port }));
`;

export interface LoadClient {
  /** The backend's port (on 127.0.0.1). */
  backend: number;
  /** The latest counts (sent every 50 ms, and once more when stopped). */
  readonly counts: LoadCounts;
  /** Starts `kept` kept-alive clients and `fresh` connecting ones on `port`. */
  start(port: number, kept: number, fresh: number): void;
  /** Stops the clients once their requests are answered; the final counts. */
  stop(): Promise<LoadCounts>;
  /** Ends the process, stopped or not. */
  kill(): void;
}

export async function loadClient(): Promise<LoadClient> {
  const child: ChildProcess = spawn(process.execPath, ['-e', CHILD], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  let counts: LoadCounts = { ok: 0, failed: 0, why: {}, fresh: 0 };
  let finished: ((c: LoadCounts) => void) | null = null;
  const backend = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      reject(new Error(`load client exited (${code})`));
      finished?.(counts);
    });
    child.on('message', (m: { backend?: number; counts?: LoadCounts; done?: boolean }) => {
      if (m.backend) resolve(m.backend);
      if (m.counts) counts = m.counts;
      if (m.done) finished?.(counts);
    });
  });
  return {
    backend,
    get counts() {
      return counts;
    },
    start(port, kept, fresh) {
      child.send({ load: { port, kept, fresh } });
    },
    stop() {
      return new Promise((resolve) => {
        finished = resolve;
        child.send({ stop: true });
      });
    },
    kill() {
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}

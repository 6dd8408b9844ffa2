// Helper processes for the idle-connection benchmark (each one its own fd budget):
//   node peers.mjs backend            → listens on 127.0.0.1:0, prints "port N", holds every connection
//   node peers.mjs clients PORT COUNT → opens COUNT connections to PORT (bounded concurrency), prints
//                                       "held N failed M" once all settled, then "still N" on each line read from stdin
import { connect, createServer } from 'node:net';
import { createInterface } from 'node:readline';

const [mode, portArg, countArg] = process.argv.slice(2);

if (mode === 'backend') {
  const socks = new Set();
  const server = createServer((s) => {
    socks.add(s);
    s.on('error', () => undefined);
    s.on('close', () => socks.delete(s));
  });
  server.on('error', () => undefined);
  server.listen(0, '127.0.0.1', () => console.log(`port ${server.address().port}`));
  createInterface({ input: process.stdin }).on('line', () => console.log(`held ${socks.size}`));
} else if (mode === 'clients') {
  const port = Number(portArg);
  const count = Number(countArg);
  const open = new Set();
  let failed = 0;
  let started = 0;
  let settled = 0;
  const CONCURRENCY = 200;
  const next = () => {
    if (started >= count) return;
    started++;
    const s = connect({ port, host: '127.0.0.1' });
    let done = false;
    const settle = (ok) => {
      if (done) return;
      done = true;
      if (ok) open.add(s);
      else failed++;
      settled++;
      if (settled === count) console.log(`held ${open.size} failed ${failed}`);
      else next();
    };
    s.on('connect', () => {
      // Connected to the forwarder; give it a moment to reach the backend or refuse (it closes then).
      setTimeout(() => settle(!s.destroyed), 50);
    });
    s.on('error', () => settle(false));
    s.on('close', () => {
      open.delete(s);
      settle(false);
    });
  };
  for (let i = 0; i < Math.min(CONCURRENCY, count); i++) next();
  createInterface({ input: process.stdin }).on('line', () => console.log(`still ${open.size}`));
}

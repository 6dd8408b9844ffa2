// The peers each benchmark measures against or drives its load with, as Debian packages: installed
// when missing (scripts/lib/apt.mjs, as `npm test` installs its own) by `npm run bench` for the
// benchmarks it runs, and by a benchmark started by hand (node bench/<name>/run.mjs) for itself.
// npm packages (playwright-core, typescript) come with the workspace's install.
import { existsSync } from 'node:fs';
import { ensureDebPackages, TEST_PACKAGES } from '../scripts/lib/apt.mjs';

/** A package `npm test` installs too: its probe as the tests declare it. */
const shared = (pkg) => {
  const p = TEST_PACKAGES.find((t) => t.pkg === pkg);
  if (!p) throw new Error(`${pkg} is not one of npm test's packages`);
  return p;
};

const P = {
  taskset: { pkg: 'util-linux', probe: '/usr/bin/taskset' },
  wrk: { pkg: 'wrk', probe: '/usr/bin/wrk' },
  nginx: { pkg: 'nginx', probe: '/usr/sbin/nginx' },
  caddy: { pkg: 'caddy', probe: '/usr/bin/caddy' },
  // h2load is in the same package as the tests' nghttp.
  h2load: { pkg: 'nghttp2-client', probe: '/usr/bin/h2load' },
  cc: { pkg: 'gcc', probe: '/usr/bin/gcc' },
  // The web bench's wrk shim (noresume.c) is built against OpenSSL's headers.
  sslHeaders: { pkg: 'libssl-dev', probe: '/usr/include/openssl/ssl.h' },
  openssl: { pkg: 'openssl', probe: '/usr/bin/openssl' },
  vsftpd: { pkg: 'vsftpd', probe: '/usr/sbin/vsftpd' },
  iperf3: { pkg: 'iperf3', probe: '/usr/bin/iperf3' },
  socat: { pkg: 'socat', probe: '/usr/bin/socat' },
  // sshd, to run OpenSSH's own sftp-server as the SFTP bench's reference (npm test's peer for remote SFTP storages too).
  sshd: shared('openssh-server'),
  // GNU find, the file search bench's reference (a walk per search).
  find: { pkg: 'findutils', probe: '/usr/bin/find' },
};

/** By benchmark (its folder's name); one without an entry needs nothing but Node and the build. */
export const BENCH_PACKAGES = {
  acme: [shared('pebble'), shared('bind9'), P.nginx, P.wrk, P.taskset],
  console: [shared('chromium')],
  defender: [P.taskset],
  filesearch: [P.find, P.taskset],
  ftp: [shared('curl'), P.vsftpd, P.taskset],
  portforward: [P.iperf3, P.socat],
  sftp: [shared('openssh-client'), P.sshd, P.taskset],
  remotestorage: [shared('rclone'), shared('curl'), P.taskset],
  protect: [P.wrk, P.nginx, P.taskset],
  // The NAT lab's peers (pebble, BIND, miniupnpd; dig and curl for the WAN client, upnpc for the
  // router's list), openssl for pebble's own certificate, and Caddy as the reference peer.
  publish: [
    shared('pebble'), shared('bind9'), shared('bind9-dnsutils'), shared('curl'), shared('miniupnpd-nftables'), shared('miniupnpc'), shared('nftables'), shared('iproute2'),
    P.openssl, P.caddy, P.taskset,
  ],
  // nginx with ngx_http_dav_module is compared where installed (nginx-extras); never installed from here.
  storage: [shared('rclone'), P.taskset],
  stun: [P.iperf3, P.socat, shared('coturn'), shared('miniupnpd-nftables'), shared('nftables'), shared('iproute2'), P.taskset],
  wanji: [shared('chromium')],
  web: [P.wrk, P.nginx, P.caddy, P.h2load, P.cc, P.sslHeaders, P.openssl, P.taskset],
};

/** The packages of `names`, installed where missing; what is still missing afterwards. */
export function installBenchPackages(names) {
  const list = names.flatMap((n) => BENCH_PACKAGES[n] ?? []);
  ensureDebPackages(list, 'benchmarks');
  return [...new Set(list.filter((p) => !existsSync(p.probe)).map((p) => p.pkg))];
}

/** For a benchmark's own start: its packages installed, or the process ends naming what is missing. */
export function requireBenchPackages(name) {
  const still = installBenchPackages([name]);
  if (still.length === 0) return;
  console.error(`bench ${name} needs the Debian packages ${still.join(', ')}, which could not be installed`);
  process.exit(1);
}

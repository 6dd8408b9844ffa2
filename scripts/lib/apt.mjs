// Debian packages the tests (and benchmarks, bench/packages.mjs) use, installed only when missing (CI
// starts from a plain machine).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { log } from './bootstrap.mjs';

/** Each entry: the Debian package and a file that proves it is installed. */
export const TEST_PACKAGES = [
  { pkg: 'chromium', probe: '/usr/bin/chromium' },
  // The file browser's tests unpack its streamed zips with Info-ZIP's unzip (ZIP64 too).
  { pkg: 'unzip', probe: '/usr/bin/unzip' },
  { pkg: 'bind9', probe: '/usr/sbin/named' },
  // dig: the tests' DNS client (the publish lab's WAN side asks its BIND with it).
  { pkg: 'bind9-dnsutils', probe: '/usr/bin/dig' },
  // curl: a real HTTP client in the web, FTP and WebDAV tests, and the publish lab's visitor from the WAN.
  { pkg: 'curl', probe: '/usr/bin/curl' },
  // Network namespaces for tests that need source addresses other than loopback.
  { pkg: 'iproute2', probe: '/usr/sbin/ip' },
  // The web rules' firewall auto-allow, tested against real nftables inside such a namespace.
  { pkg: 'nftables', probe: '/usr/sbin/nft' },
  // setcap: the firewall test gives a copy of nft CAP_NET_ADMIN, as the Docker image does.
  { pkg: 'libcap2-bin', probe: '/usr/sbin/setcap' },
  // The STUN module's tests. None of these leaves a daemon behind in the tests' way: coturn's
  // package enables a systemd `coturn` unit (0.0.0.0:3478/3479 where systemd runs; not started in
  // containers, where policy-rc.d refuses it), so the tests' coturn uses other ports or its own
  // namespace; miniupnpd-nftables installs no unit and no config (its scripts in /etc/miniupnpd
  // are not used), so nothing starts it.
  // A real STUN server (RFC 5780 with two addresses) for the STUN client and NAT tests.
  { pkg: 'coturn', probe: '/usr/bin/turnserver' },
  // A real UPnP IGD and NAT-PMP gateway in the NAT lab's router namespace.
  { pkg: 'miniupnpd-nftables', probe: '/usr/sbin/miniupnpd' },
  // A second UPnP client, to see from outside what the router holds.
  { pkg: 'miniupnpc', probe: '/usr/bin/upnpc' },
  // A second NAT-PMP client, to check the gateway by hand when a test fails.
  { pkg: 'natpmpc', probe: '/usr/bin/natpmpc' },
  // The WebDAV module's tests: litmus runs the RFC 4918 conformance suites against our server, and
  // rclone copies trees both ways through it as a real client would.
  { pkg: 'litmus', probe: '/usr/bin/litmus' },
  { pkg: 'rclone', probe: '/usr/bin/rclone' },
  // The SFTP server's tests: OpenSSH's sftp, scp and ssh (and ssh-keygen for their keys) as the real clients.
  { pkg: 'openssh-client', probe: '/usr/bin/sftp' },
  // Remote SFTP storages are tested against OpenSSH's sshd and its SFTP server, run by the test on
  // loopback with a config of its own (the package's own sshd service is not started: policy-rc.d).
  { pkg: 'openssh-server', probe: '/usr/sbin/sshd' },
  // davfs2 mounts the WebDAV server as a file system (FUSE), as a Linux desktop or NAS would.
  { pkg: 'davfs2', probe: '/usr/sbin/mount.davfs' },
  // The FTP server's tests: lftp (with curl) as the real clients, plain and over FTPS.
  { pkg: 'lftp', probe: '/usr/bin/lftp' },
  // ping: wake-on-LAN's ICMP online check (unprivileged ICMP sockets or its file capability).
  { pkg: 'iputils-ping', probe: '/usr/bin/ping' },
  // tcpdump: the wake-on-LAN device finder's test watches every packet the scan sends in its namespace lab.
  { pkg: 'tcpdump', probe: '/usr/bin/tcpdump' },
  // The certificates module's tests: pebble, Let's Encrypt's small ACME (RFC 8555) server; the
  // tests validate against a BIND of their own (the DDNS tests' helper).
  { pkg: 'pebble', probe: '/usr/bin/pebble' },
  // The web services' HTTP/2 tests: nghttp as a second h2 client beside curl (h2load for the bench).
  { pkg: 'nghttp2-client', probe: '/usr/bin/nghttp' },
  // nghttp2's declarations: the web data plane's HTTP/2 is built against them (it calls the nghttp2 inside Node).
  { pkg: 'libnghttp2-dev', probe: '/usr/include/nghttp2/nghttp2.h' },
  // The fuzzers of the native parsers (apps/daemon/native/fuzz): Debian's clang, and the libFuzzer
  // and sanitizer runtimes it only recommends (recommends are not installed).
  { pkg: 'clang', probe: '/usr/bin/clang' },
  { pkg: 'libclang-rt-14-dev', probe: '/usr/lib/llvm-14/lib/clang/14.0.6/include/fuzzer/FuzzedDataProvider.h' },
  // GET /metrics is scraped by a real Prometheus in its test (promtool checks the exposition). The
  // package enables a systemd unit on port 9090 where systemd runs (not in containers); the test's own Prometheus
  // listens on a free port with its storage in a temp directory, so the two never meet.
  { pkg: 'prometheus', probe: '/usr/bin/prometheus' },
  // Chinese glyphs in the console screenshots (the default language is zh_CN).
  { pkg: 'fonts-wqy-zenhei', probe: '/usr/share/fonts/truetype/wqy/wqy-zenhei.ttc' },
];

/** Debian's service start from a package's postinst, refused while we install (policy-rc.d, exit 101). */
const POLICY = '/usr/sbin/policy-rc.d';

/**
 * Installs the packages of `list` whose probe is missing (apt-get, as root or through `sudo -n`).
 * Nothing a package brings starts listening: nginx, caddy, vsftpd, bind9, coturn and openssh-server enable a service
 * that their postinst would start on every address, and the tests and benchmarks run their own on
 * loopback. `who` names what needs them, for the messages.
 */
export function ensureDebPackages(list = TEST_PACKAGES, who = 'tests') {
  const missing = [...new Set(list.filter((p) => !existsSync(p.probe)).map((p) => p.pkg))];
  if (missing.length === 0) return true;
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) {
    log(`cannot install ${missing.join(', ')}: no apt-get here; ${who} that need them will fail`);
    return false;
  }
  const asRoot = process.getuid?.() === 0;
  const sudo = asRoot ? [] : ['sudo', '-n'];
  const run = (args) => {
    const [cmd, ...rest] = [...sudo, ...args];
    return spawnSync(cmd, rest, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0;
  };
  log(`installing Debian packages: ${missing.join(' ')}`);
  // A policy already there (Docker images have one) is the system's: left as it is.
  const ownPolicy = !existsSync(POLICY) && run(['sh', '-c', `printf '#!/bin/sh\\nexit 101\\n' > ${POLICY} && chmod 755 ${POLICY}`]);
  let ok;
  try {
    if (!run(['apt-get', 'update', '-qq'])) log('apt-get update failed');
    ok = run(['apt-get', 'install', '-y', '-qq', '--no-install-recommends', ...missing]);
  } finally {
    if (ownPolicy) run(['rm', '-f', POLICY]);
  }
  if (!ok) log(`could not install ${missing.join(', ')}; ${who} that need them will fail`);
  return ok;
}

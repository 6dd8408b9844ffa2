/**
 * The native code that parses bytes from the internet (native/edge: request heads and their routing,
 * response heads, the chunked coding, the login portal's cookies), fuzzed for a bounded time on every `npm test`: each libFuzzer
 * harness is built with Debian's clang (AddressSanitizer, UBSan) into a temp dir and run on a copy of
 * its corpus, so new inputs never land in the repository. A crash, a sanitizer report or a failed
 * invariant fails the test and prints the input that did it and how to replay it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const fuzzDir = dirname(fileURLToPath(import.meta.url));
const edgeDir = join(fuzzDir, '..', 'edge');
/**
 * Per harness: about a minute for both, on one core, beside the rest of the suite. npm test, running
 * the suite on two Nodes, gives each run its share (LUCKY_FUZZ_SECONDS): the C is the same on both.
 */
const SECONDS = Number(process.env.LUCKY_FUZZ_SECONDS) || 25;

/** `share`: of SECONDS (the three together about twice SECONDS); the cookie harness's one small job is covered within seconds. */
const HARNESSES: Array<{ name: string; sources: string[]; share: number }> = [
  { name: 'request', sources: ['http1_head.c', 'http1_request.c', 'http1_chunked.c', 'route.c'], share: 0.85 },
  { name: 'response', sources: ['http1_head.c', 'http1_response.c', 'http1_chunked.c'], share: 0.85 },
  { name: 'cookie', sources: ['cookie.c', 'http1_head.c', 'http1_chunked.c'], share: 0.3 },
];

/** The last `max` characters of a stream: libFuzzer reports every new input, the end is what counts. */
function tail(max: number): { add(s: string): void; text(): string } {
  let buf = '';
  return {
    add(s) {
      buf += s;
      if (buf.length > 2 * max) buf = buf.slice(-max);
    },
    text: () => buf.slice(-max),
  };
}

function run(bin: string, args: string[], limitMs: number): Promise<{ code: number | null; signal: string | null; output: string }> {
  return new Promise((resolve) => {
    const out = tail(24_000);
    const p = spawn(bin, args, {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ASAN_OPTIONS: 'detect_leaks=1:abort_on_error=0', UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1' },
    });
    p.stdout.on('data', (d: Buffer) => out.add(d.toString('latin1')));
    p.stderr.on('data', (d: Buffer) => out.add(d.toString('latin1')));
    // -max_total_time ends the run; this only guards against a harness that hangs outside it.
    const guard = setTimeout(() => p.kill('SIGKILL'), limitMs);
    p.on('close', (code, signal) => {
      clearTimeout(guard);
      resolve({ code, signal, output: out.text() });
    });
  });
}

describe('native parsers under libFuzzer', () => {
  for (const h of HARNESSES) {
    const seconds = Math.max(3, Math.round(SECONDS * h.share));
    it(
      `fuzz_${h.name} finds nothing in ${seconds} s`,
      async () => {
        const work = mkdtempSync(join(tmpdir(), `lucky-fuzz-${h.name}-`));
        const bin = join(work, `fuzz_${h.name}`);
        const cc = spawnSync(
          'clang',
          [
            '-g',
            '-O1',
            '-fsanitize=fuzzer,address,undefined',
            '-fno-sanitize-recover=undefined',
            '-o',
            bin,
            join(fuzzDir, `fuzz_${h.name}.c`),
            join(fuzzDir, 'common.c'),
            ...h.sources.map((s) => join(edgeDir, s)),
          ],
          { encoding: 'utf8' },
        );
        if (cc.error || cc.status !== 0) {
          rmSync(work, { recursive: true, force: true });
          throw new Error(
            `clang could not build fuzz_${h.name} (npm test installs clang and libclang-rt-14-dev): ${cc.error?.message ?? cc.stderr}`,
          );
        }
        const corpus = join(work, 'corpus');
        cpSync(join(fuzzDir, 'corpus', h.name), corpus, { recursive: true });
        const args = [
          `-max_total_time=${seconds}`,
          '-timeout=10',
          '-rss_limit_mb=1024',
          '-max_len=8192',
          `-dict=${join(fuzzDir, `${h.name}.dict`)}`,
          `-artifact_prefix=${work}/`,
          '-print_final_stats=1',
          corpus,
        ];
        const r = await run(bin, args, (seconds + 60) * 1000);
        const found = readdirSync(work).filter((f) => /^(crash|leak|timeout|oom|slow-unit)-/.test(f));
        if (r.code !== 0 || found.length > 0) {
          // The work dir stays, with the built harness: `<work>/fuzz_x <work>/crash-...` replays it.
          const inputs = found.map((f) => {
            const bytes = readFileSync(join(work, f));
            return `${join(work, f)}\n  as text: ${JSON.stringify(bytes.toString('latin1'))}\n  base64: ${bytes.toString('base64')}\n  replay: ${bin} ${join(work, f)}`;
          });
          throw new Error(
            `fuzz_${h.name} failed (exit ${r.code ?? r.signal}); reproducer${inputs.length === 1 ? '' : 's'}:\n${inputs.join('\n') || '(none written)'}\n\n${r.output}`,
          );
        }
        const runs = Number(/stat::number_of_executed_units:\s*(\d+)/.exec(r.output)?.[1] ?? 0);
        rmSync(work, { recursive: true, force: true });
        expect(runs).toBeGreaterThan(1000);
      },
      (seconds + 90) * 1000,
    );
  }
});

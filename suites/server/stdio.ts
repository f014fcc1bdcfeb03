import { describeReply, type Finding, replyFrame, type RequirementId, scenario, type ScenarioContext } from '../kit.js';

// stdio transport rules (basic/transports.mdx#stdio). Every stdout line is judged live by the
// transport's line framer; these scenarios give each rule a check of its own on a fresh process.

const STDOUT_RULES = new Set(['STDIO-OUT-01', 'STDIO-FRAME-01']);

/** List requests for what the server declared (discovery saw the same capabilities). */
const LISTS = [
  { capability: 'tools', method: 'tools/list' },
  { capability: 'prompts', method: 'prompts/list' },
  { capability: 'resources', method: 'resources/list' },
  { capability: 'resources', method: 'resources/templates/list' },
] as const;

export const cleanStdout = scenario({
  id: 'server.stdio.clean-stdout',
  title: 'stdout carries only newline-delimited JSON-RPC messages, one per line',
  requirements: ['STDIO-OUT-01', 'STDIO-FRAME-01'],
  // A shared session is observed from its process's start, so start-up noise is seen too.
  isolation: 'shared',
  carriedOver: true,
  needs: { transport: 'stdio' },
  async run({ session, check, discovery }) {
    const asked: string[] = [];
    for (const l of LISTS) {
      if (!(l.capability in discovery.capabilities)) continue;
      await session.request(l.method, {});
      asked.push(l.method);
    }
    const last = await session.barrier();
    asked.push(session.probeMethod);

    const findings = session.transportFindings.filter((f) => f.severity !== 'info' && f.requirements.some((r) => STDOUT_RULES.has(r)));
    // A line that is not JSON is also kept as a frame with only `raw` set.
    const noise = session.peerFrames(0).filter((f) => f.raw !== undefined && f.message === undefined);
    const out = findings.filter((f) => f.requirements.includes('STDIO-OUT-01'));
    const framing = findings.filter((f) => f.requirements.includes('STDIO-FRAME-01'));
    const quoteOf = (fs: Finding[]) => fs.slice(0, 3).map((f) => f.message).join('; ');
    check.expect(out.length === 0 && noise.length === 0, {
      key: 'no-noise',
      requirements: ['STDIO-OUT-01'],
      expected: `nothing on stdout but MCP messages while starting, opening the conversation and answering ${asked.join(', ')} (no banner, log line or blank line)`,
      actual:
        out.length > 0
          ? `${out.length} problem(s): ${quoteOf(out)}`
          : `${noise.length} stdout line(s) that are not JSON, the first: ${noise[0]?.raw?.slice(0, 200) ?? ''}`,
      frames: noise.slice(0, 3).map((f) => f.index),
    });
    check.expect(framing.length === 0, {
      key: 'one-message-per-line',
      requirements: ['STDIO-FRAME-01'],
      expected: 'each message on a single newline-terminated line (no pretty-printing, no embedded newlines)',
      actual: `${framing.length} problem(s): ${quoteOf(framing)}`,
      frames: [replyFrame(last)],
      replies: [last],
    });
  },
});

const EXIT_WAIT_MS = 5_000;

/** The body of the stdin-close scenario in either era; `rule` is the id its revision's catalog gives the behaviour. */
async function exitsOnStdinClose({ session, connect, check }: ScenarioContext, rule: RequirementId): Promise<void> {
  const channel = session.channel;
  if (channel.kind !== 'stdio') return check.error('needs the stdio transport');
  const init = await connect(session);
  if (!init.ok) return check.error(`${init.opening} failed: ${describeReply(init.reply)}`);
  const started = performance.now();
  channel.process.closeStdin();
  // Stretched by the server's measured pace and start: a busy machine's slow exit is no refusal to exit.
  const waitMs = session.processMs(EXIT_WAIT_MS);
  const exit = await channel.process.waitForExit(waitMs);
  const tookMs = Math.round(performance.now() - started);
  check.expect(exit !== undefined, {
    requirements: [rule],
    expected: `the process exits within ${waitMs / 1000} s of its stdin reaching end-of-file (so a client rarely needs SIGTERM)`,
    actual: exit === undefined ? `still running after ${waitMs} ms` : `exited after ${tookMs} ms`,
  });
  if (exit !== undefined) check.note(`the server exited ${tookMs} ms after stdin closed (${exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`})`);
  // The runner closes the channel; a process still running is stopped there (SIGTERM, then SIGKILL).
}

export const exitOnStdinClose = scenario({
  id: 'server.stdio.exit-on-stdin-close',
  title: 'The server exits on its own soon after its stdin is closed',
  requirements: ['ROBUST-03'],
  isolation: 'process',
  // 2026-07-28 makes the derived ROBUST-03 a spec SHOULD of its own, STDIO-SHUT-01.
  revisions: { removed: '2026-07-28' },
  waits: true,
  needs: { transport: 'stdio' },
  run: (ctx) => exitsOnStdinClose(ctx, 'ROBUST-03'),
});

export const modernExitOnStdinClose = scenario({
  id: 'server.modern.stdio.exit-on-stdin-close',
  title: 'The server exits promptly when its stdin is closed (the one portable graceful-shutdown signal)',
  requirements: ['STDIO-SHUT-01'],
  isolation: 'process',
  revisions: { introduced: '2026-07-28' },
  waits: true,
  needs: { transport: 'stdio' },
  run: (ctx) => exitsOnStdinClose(ctx, 'STDIO-SHUT-01'),
});

export const stdio = [cleanStdout, exitOnStdinClose, modernExitOnStdinClose];

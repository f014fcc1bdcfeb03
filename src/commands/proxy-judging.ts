import { parentPort, workerData } from 'node:worker_threads';
import type { RunReport } from '../model.js';
import type { Exchange } from '../proxy/http-reverse.js';
import { HttpSessions, type JudgedSession } from '../proxy/http-sessions.js';
import { TrafficJudge } from '../proxy/traffic-judge.js';
import { redactorFor } from '../redact.js';
import { TranscriptStream } from '../transcript/stream.js';
import { frames, reportOf } from './proxy-report.js';
import { ACK_BYTES, type Ending, type FromJudging, type JudgingSetup, type Passed, type Range, type ToJudging } from './proxy-thread.js';

/**
 * mcpcheck proxy's judging thread (a worker started by JudgingThread): what passed the proxy
 * arrives here as it passed, is framed, judged, written to the transcript and told as lines, and
 * graded when the session ends; the report goes back to the forwarder, which writes it.
 */
const setup = workerData as JudgingSetup;
const port = parentPort!;
const redactor = redactorFor(process.env, setup.headers);
const post = (m: FromJudging): void => port.postMessage(m);
const log = (line: string): void => post({ t: 'line', text: redactor.text(line) });
const redact = (text: string): string => redactor.text(text);
/** When what is being judged passed the proxy (the forwarder's clock, not the time it is judged). */
let passedAt = Date.now();
const clock = (): number => passedAt;
let unacknowledged = 0;

/** Tells the forwarder how far judging got, every ACK_BYTES: its backlog bound counts by it. */
function judged(bytes: number): void {
  unacknowledged += bytes;
  if (unacknowledged < ACK_BYTES) return;
  post({ t: 'judged', bytes: unacknowledged });
  unacknowledged = 0;
}

interface Judging {
  /** What passed; `chunk`: its bytes, when it carried some. */
  take(m: Passed, chunk: Buffer | undefined): void;
  stop(why: string): void;
  report(ending: Ending): Promise<RunReport>;
}

function stdioJudging(s: Extract<JudgingSetup, { kind: 'stdio' }>): Judging {
  const transcript = s.transcript !== undefined ? new TranscriptStream(s.transcript, 'stdio', redact) : undefined;
  const judge = new TrafficJudge({ transport: 'stdio', ...(transcript ? { transcript } : {}), onLine: log, tellNotes: s.verbose, clock });
  return {
    take(m, chunk) {
      if (m.t === 'bytes' && chunk) judge.push(m.from, chunk);
      else if (m.t === 'end') judge.end(m.from);
    },
    stop: (why) => judge.stop(why),
    async report(ending) {
      if (ending.kind !== 'stdio') throw new Error('a stdio session ended as an HTTP one');
      const judgedTraffic = judge.finish();
      const transcriptProblem = await transcript?.close();
      log(`session ended: ${ending.ended}; ${frames(judgedTraffic.frames.length)} judged`);
      const session: JudgedSession = { label: 'proxied session', judged: judgedTraffic, ...(s.transcript !== undefined ? { transcript: s.transcript } : {}), ...(transcriptProblem !== undefined ? { transcriptProblem } : {}) };
      return reportOf(s, [session], {
        started: s.started,
        target: { kind: 'stdio', description: `${s.command}, through mcpcheck proxy` },
        limits: ending.startupFailure !== undefined ? [ending.startupFailure] : [],
        notes: [`session: ${ending.ended}; ${frames(judgedTraffic.frames.length)} passed`],
        transcriptFlag: s.transcript,
      });
    },
  };
}

function httpJudging(s: Extract<JudgingSetup, { kind: 'http' }>): Judging {
  const endpointPath = new URL(s.upstream).pathname;
  const sessions = new HttpSessions({ endpointPath, ...(s.transcriptDir !== undefined ? { transcriptDir: s.transcriptDir } : {}), redact, onLine: log, tellNotes: s.verbose, clock });
  /** Exchanges under way, by number: each part refers to the one object its first part made. */
  const exchanges = new Map<number, Exchange>();
  return {
    take(m, chunk) {
      if (m.t === 'listening') return sessions.listeningAt(m.endpoint);
      if (m.t !== 'exchange') return;
      const x = exchanges.get(m.n) ?? m.exchange;
      if (!x) return;
      exchanges.set(m.n, x);
      if (m.answer) Object.assign(x, m.answer);
      if (m.part === 'requestBody' && chunk) sessions.requestBody(x, chunk);
      else if (m.part === 'responseBody' && chunk) sessions.responseBody(x, chunk);
      else if (m.part === 'requestEnd') sessions.requestEnd(x);
      else if (m.part === 'response') sessions.response(x);
      else if (m.part === 'unreachable') sessions.unreachable(x, m.why ?? 'unknown');
      else if (m.part === 'responseEnd') {
        sessions.responseEnd(x);
        exchanges.delete(m.n);
      }
    },
    stop: (why) => sessions.stop(why),
    async report(ending) {
      if (ending.kind !== 'http') throw new Error('an HTTP session ended as a stdio one');
      const judgedSessions = await sessions.finish();
      const total = judgedSessions.reduce((n, j) => n + j.judged.frames.length, 0);
      log(`stopped: ${judgedSessions.length} session(s), ${frames(total)} judged`);
      return reportOf(s, judgedSessions, {
        started: s.started,
        target: { kind: 'http', description: `${s.upstream}, through mcpcheck proxy at ${ending.endpoint}` },
        limits: sessions.unreached > 0 ? [`the server could not be reached for ${sessions.unreached} exchange(s); the client was answered 502`] : [],
        notes: [...(judgedSessions.length === 0 ? ['no client traffic passed: nothing was judged'] : judgedSessions.map((j) => `${j.label}: ${frames(j.judged.frames.length)} passed`)), ...sessions.setupNotes],
        transcriptFlag: s.transcriptDir,
      });
    },
  };
}

const judging = setup.kind === 'stdio' ? stdioJudging(setup) : httpJudging(setup);
port.on('message', (m: ToJudging) => {
  if (m.t === 'stop') judging.stop(m.why);
  else if (m.t === 'finish') void judging.report(m.ending).then((report) => post({ t: 'report', report }));
  else {
    for (const passed of m.passed) {
      if ('at' in passed) passedAt = passed.at;
      const range = 'chunk' in passed ? passed.chunk : undefined;
      judging.take(passed, range ? view(m.bytes, range) : undefined);
    }
    judged(m.bytes.byteLength);
  }
});

/** A chunk's bytes, in place in its batch's buffer. */
function view(bytes: ArrayBuffer, [offset, length]: Range): Buffer {
  return Buffer.from(bytes, offset, length);
}
